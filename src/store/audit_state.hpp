// The audit entries both backends write inside their transactions (A30): the before/after
// state documents of a delivery, an endpoint's enable/disable transition, a resend, a
// recover and an idempotency gateway key's resolution, and how a caller's entry is completed
// with what only the transaction knows.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "store/model.hpp"

namespace hookd::store {

// The audit-visible state of a delivery as a JSON object (status, endpoint, attempts).
std::string delivery_state_json(const Delivery& d);
// What a resend created: {"delivery": id, "endpoint_id": ..., "status": ...}.
std::string resend_state_json(const Delivery& d);
// What a recover did: {"status": "pending", "recovered": n}.
std::string recover_state_json(int recovered);
// What a replay-missing did: {"status": "pending", "replayed": n}.
std::string replay_missing_state_json(int replayed);
// `audit` as the backends append it: an empty target_id becomes `new_id` (a create), a
// missing `after` becomes `after` (state only the transaction knows).
AuditEntry completed_audit(AuditEntry audit, const std::string& new_id,
                           std::optional<std::string> after = std::nullopt);
// `audit` for one delivery of a dead-letter replay / discard: targets `before`'s id and
// fills a missing before/after with the delivery's state documents.
AuditEntry delivery_audit(AuditEntry audit, const Delivery& before, const Delivery& after);
// `audit` for an endpoint's enable/disable transition: before/after become the row's
// {"disabled": ..., "disabledReason": ... or null} as it was and became.
AuditEntry endpoint_disabled_audit(AuditEntry audit, const Endpoint& before, const Endpoint& after);
// The audit-visible state of an idempotency gateway key (no body): id, proxy, tenant, key,
// fingerprint, state, status (or null), owner, body_size, body_sha256, expires_at,
// resolved_by, reason.
std::string proxy_key_state_json(const ProxyKey& k);
// `audit` for a resolution of key `before`: targets it (target_type "proxy_key") and fills a
// missing before/after with the key's state documents; `after` nullopt: the row was deleted
// (after becomes {"id": ..., "deleted": true}).
AuditEntry proxy_key_audit(AuditEntry audit, const ProxyKey& before,
                           const std::optional<ProxyKey>& after);

}  // namespace hookd::store
