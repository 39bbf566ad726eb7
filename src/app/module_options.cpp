#include "app/module_options.hpp"

#include "core/address_policy.hpp"

namespace hookd::app {

Result<api::ApiOptions> api_options(const config::Config& config) {
  auto policy = AddressPolicy::from_strings(config.ssrf.allowed_subnets);
  if (!policy) return std::unexpected(policy.error());
  api::ApiOptions o;
  for (const auto& t : config.auth.tokens) o.tokens.push_back({t.name, t.token});
  o.max_json_depth = config.server.max_json_depth;
  o.address_policy = std::move(*policy);
  return o;
}

}  // namespace hookd::app
