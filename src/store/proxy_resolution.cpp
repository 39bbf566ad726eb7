#include "store/proxy_resolution.hpp"

#include <nlohmann/json.hpp>

namespace hookd::store {

AuditEntry proxy_resolution_audit(const std::string& key_id, const std::string& actor,
                                  const std::string& reason) {
  AuditEntry audit;
  audit.actor = actor;
  audit.action = "proxy_key.resolve";
  audit.target_type = "proxy_key";
  audit.target_id = key_id;
  audit.reason = reason;
  return audit;
}

void fill_default_response(ProxyResolution& resolution, const ProxyKey& key) {
  if (resolution.outcome != ProxyResolution::Outcome::kCompleted || resolution.status != 0) return;
  resolution.status = 200;
  resolution.headers = {{"Content-Type", "application/json"}};
  resolution.body = nlohmann::json{{"idempotencyKey", key.key},
                                   {"outcome", "completed"},
                                   {"resolvedBy", resolution.resolved_by},
                                   {"reason", resolution.reason}}
                        .dump();
}

}  // namespace hookd::store
