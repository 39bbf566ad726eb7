// How a resolution of an unknown idempotency key is written, the same whoever resolves it
// (the API, `hookd idem resolve`, the status_url resolver): its audit entry, and the answer a
// key declared completed without a response replays. Thread-safety: pure functions.
#pragma once

#include <string>

#include "store/model.hpp"
#include "store/store.hpp"

namespace hookd::store {

// action "proxy_key.resolve", target_type "proxy_key"; before/after left for the store.
AuditEntry proxy_resolution_audit(const std::string& key_id, const std::string& actor,
                                  const std::string& reason);

// A completed resolution without a status gets 200 application/json
// {"idempotencyKey", "outcome": "completed", "resolvedBy", "reason"}.
void fill_default_response(ProxyResolution& resolution, const ProxyKey& key);

}  // namespace hookd::store
