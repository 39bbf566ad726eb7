// The audit entries of the API's state-changing routes (A30): who (the token's name), why
// (optional on the Svix routes: the X-Hookd-Reason header, else a `reason` string in the JSON
// body), what (action, target) and the state before/after. No entry holds a secret: an
// endpoint's signing keys are left out, its custom headers appear by name only.
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "api/router.hpp"
#include "store/model.hpp"

namespace hookd::api {

inline constexpr std::size_t kMaxAuditReason = 1024;
inline constexpr const char* kReasonHeader = "X-Hookd-Reason";

// The optional reason of an action: the X-Hookd-Reason header, else the body's `reason`
// string; "" when neither (cut to kMaxAuditReason bytes).
std::string audit_reason(const Call& call);

// actor = the caller's token name, reason = audit_reason(call).
store::AuditEntry audit_entry(const Call& call, std::string action, std::string target_type,
                              std::string target_id);

// The audit-visible state of a record (its API fields without id and times).
nlohmann::json audit_state(const store::Application& app);
nlohmann::json audit_state(const store::EventType& type);
// Without the secrets; "headers" lists the custom header names only.
nlohmann::json audit_state(const store::Endpoint& ep);

// An entry for a change from `before` to `after`: only the fields that differ, each with
// its old and new value; nullopt when nothing differs (no change, no entry). For endpoints,
// a custom header whose value changed (values are never shown) is named in
// after.headersChanged.
std::optional<store::AuditEntry> update_entry(store::AuditEntry entry, const nlohmann::json& before,
                                              const nlohmann::json& after);
std::optional<store::AuditEntry> endpoint_update_entry(const Call& call,
                                                       const store::Endpoint& before,
                                                       const store::Endpoint& after);

// Sets the entry's before/after to these documents (null stays null: nothing there).
store::AuditEntry with_states(store::AuditEntry entry, const nlohmann::json& before,
                              const nlohmann::json& after);

}  // namespace hookd::api
