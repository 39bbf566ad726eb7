// Mapping between SQLite rows and the model structs: the column list each SELECT uses and
// the matching reader, plus JSON encoding of lists and header maps. Thread-safety: pure
// functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hookd/result.hpp"
#include "store/model.hpp"
#include "store/sqlite/connection.hpp"

namespace hookd::store::sqlite {

std::optional<std::string> encode_list(const std::optional<std::vector<std::string>>& list);
std::string encode_list(const std::vector<std::string>& list);
std::optional<std::vector<std::string>> decode_list(const std::optional<std::string>& json);
std::string encode_headers(const Headers& headers);
Headers decode_headers(const std::string& json);

inline constexpr std::string_view kAppColumns =
    "id, uid, name, rate_limit, metadata, created_at, updated_at";
Application read_application(const Stmt& s);

inline constexpr std::string_view kEventTypeColumns =
    "name, description, archived, schemas, created_at, updated_at";
EventType read_event_type(const Stmt& s);

inline constexpr std::string_view kEndpointColumns =
    "id, app_id, uid, url, description, filter_types, channels, secret, previous_secret, "
    "previous_expires_at, rate_limit, disabled, disabled_reason, fifo, headers, retry_policy, "
    "connect_timeout_ms, total_timeout_ms, metadata, created_at, updated_at, revision";
Endpoint read_endpoint(const Stmt& s);

inline constexpr std::string_view kMessageColumns =
    "id, app_id, event_type, event_id, channels, payload, ordering_key, sequence, created_at, "
    "tags";
Message read_message(const Stmt& s);

inline constexpr std::string_view kDeliveryColumns =
    "id, msg_id, endpoint_id, app_id, status, attempts, next_attempt_at, lease_owner, "
    "lease_until, first_attempt_at, last_attempt_at, last_error, last_response_status, "
    "ordering_key, sequence, created_at, updated_at";
inline constexpr int kDeliveryColumnCount = 17;
Delivery read_delivery(const Stmt& s);

inline constexpr std::string_view kAttemptColumns =
    "id, delivery_id, msg_id, endpoint_id, app_id, attempted_at, response_status, "
    "response_headers, response_body, duration_ms, error, success, trigger, url";
Attempt read_attempt(const Stmt& s);

inline constexpr std::string_view kInboxColumns =
    "id, source, event_id, business_key, entity_key, sequence, event_time, received_at, "
    "processed_at, status, attempts, next_attempt_at, lease_owner, lease_until, depends_on, "
    "last_error, headers, payload";
InboxEvent read_inbox(const Stmt& s);

inline constexpr std::string_view kIdemColumns =
    "scope, key, fingerprint, state, response_status, response_headers, response_body, "
    "created_at, updated_at, expires_at";
IdempotencyRecord read_idempotency(const Stmt& s);

inline constexpr std::string_view kAuditColumns =
    "id, at, actor, action, target_type, target_id, reason, before, after";
AuditEntry read_audit(const Stmt& s);

// Runs a prepared query and collects every row with `reader`.
template <class T, class Reader>
Result<std::vector<T>> collect(Stmt& s, Reader reader) {
  std::vector<T> out;
  for (;;) {
    auto row = s.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) return out;
    out.push_back(reader(s));
  }
}

// Runs a prepared query expected to return one row; kNotFound (with `what`) otherwise.
template <class T, class Reader>
Result<T> single(Stmt& s, Reader reader, std::string_view what) {
  auto row = s.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return fail(ErrorCode::kNotFound, std::string(what) + " not found");
  return reader(s);
}

}  // namespace hookd::store::sqlite

namespace hookd::store::sqlite {
// The audit-visible state of a delivery as a JSON object (status, endpoint, attempts).
std::string delivery_state_json(const Delivery& d);
// An endpoint's enable/disable state: {"disabled": ..., "disabledReason": ... or null}.
std::string endpoint_disabled_json(const Endpoint& ep);
// What a resend created: {"delivery": id, "endpoint_id": ..., "status": ...}.
std::string resend_state_json(const Delivery& d);
// What a recover did: {"status": "pending", "recovered": n}.
std::string recover_state_json(int recovered);
// `audit` as the backends append it: an empty target_id becomes `new_id` (a create), a
// missing `after` becomes `after` (state only the transaction knows).
AuditEntry completed_audit(AuditEntry audit, const std::string& new_id,
                           std::optional<std::string> after = std::nullopt);
}  // namespace hookd::store::sqlite
