#include "store/audit_state.hpp"

#include <nlohmann/json.hpp>

namespace hookd::store {
namespace {

std::string endpoint_disabled_json(const Endpoint& ep) {
  nlohmann::json j = {{"disabled", ep.disabled}};
  j["disabledReason"] = ep.disabled_reason ? nlohmann::json(*ep.disabled_reason) : nullptr;
  return j.dump();
}

}  // namespace

std::string delivery_state_json(const Delivery& d) {
  return nlohmann::json{{"status", std::string(to_string(d.status))},
                        {"endpoint_id", d.endpoint_id},
                        {"attempts", d.attempts}}
      .dump();
}

std::string resend_state_json(const Delivery& d) {
  return nlohmann::json{{"delivery", d.id},
                        {"endpoint_id", d.endpoint_id},
                        {"status", std::string(to_string(d.status))}}
      .dump();
}

std::string recover_state_json(int recovered) {
  return nlohmann::json{{"status", "pending"}, {"recovered", recovered}}.dump();
}

std::string replay_missing_state_json(int replayed) {
  return nlohmann::json{{"status", "pending"}, {"replayed", replayed}}.dump();
}

AuditEntry completed_audit(AuditEntry audit, const std::string& new_id,
                           std::optional<std::string> after) {
  if (audit.target_id.empty()) audit.target_id = new_id;
  if (!audit.after && after) audit.after = std::move(after);
  return audit;
}

AuditEntry delivery_audit(AuditEntry audit, const Delivery& before, const Delivery& after) {
  audit.target_type = "delivery";
  audit.target_id = before.id;
  if (!audit.before) audit.before = delivery_state_json(before);
  if (!audit.after) audit.after = delivery_state_json(after);
  return audit;
}

AuditEntry endpoint_disabled_audit(AuditEntry audit, const Endpoint& before,
                                   const Endpoint& after) {
  audit.before = endpoint_disabled_json(before);
  audit.after = endpoint_disabled_json(after);
  return audit;
}

std::string proxy_key_state_json(const ProxyKey& k) {
  nlohmann::json j = {{"id", k.id},
                      {"proxy", k.proxy},
                      {"tenant", k.tenant},
                      {"key", k.key},
                      {"fingerprint", k.fingerprint},
                      {"state", std::string(to_string(k.state))},
                      {"owner", k.owner},
                      {"body_size", k.body_size},
                      {"body_sha256", k.body_sha256},
                      {"expires_at", k.expires_at},
                      {"resolved_by", k.resolved_by},
                      {"reason", k.reason}};
  j["status"] = k.status ? nlohmann::json(*k.status) : nullptr;
  // The key is the client's: never let a stray byte make the audit entry fail.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

AuditEntry proxy_key_audit(AuditEntry audit, const ProxyKey& before,
                           const std::optional<ProxyKey>& after) {
  audit.target_type = "proxy_key";
  audit.target_id = before.id;
  if (!audit.before) audit.before = proxy_key_state_json(before);
  if (!audit.after) {
    audit.after = after ? proxy_key_state_json(*after)
                        : nlohmann::json{{"id", before.id}, {"deleted", true}}.dump();
  }
  return audit;
}

}  // namespace hookd::store
