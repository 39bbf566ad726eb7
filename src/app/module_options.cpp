#include "app/module_options.hpp"

#include <algorithm>

#include "config/retry_policy.hpp"
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

outbound::DispatcherOptions dispatcher_options(const config::Config& config) {
  const auto& d = config.delivery;
  outbound::DispatcherOptions o;
  o.poll_interval = d.poll_interval;
  o.lease = d.lease_duration;
  o.claim_batch = std::max(1, d.claim_batch_size);
  o.max_held = std::max({2048, o.claim_batch * 4, d.workers * std::max(1, d.endpoint_concurrency)});
  o.connect_timeout = d.connect_timeout;
  o.total_timeout = d.timeout;
  o.body_excerpt_bytes = d.max_response_body_bytes;
  o.stop_grace = config.server.shutdown_grace;
  o.retry = config::retry_policy_config(d.retry);
  o.gate.max_in_flight = static_cast<std::uint32_t>(std::max(0, d.endpoint_concurrency));
  o.gate.rate.per_second = static_cast<std::uint32_t>(std::max(0, d.default_rate_limit));
  auto& breaker = o.gate.breaker;
  // circuit_failure_threshold is the deprecated key: only its 0 (no breaker) still means it.
  breaker.enabled = d.circuit_failure_rate > 0 && d.circuit_failure_threshold != 0;
  breaker.failure_rate = std::max(1, d.circuit_failure_rate) / 100.0;
  breaker.min_attempts = std::max(1, d.circuit_min_attempts);
  breaker.window = d.circuit_window;
  breaker.cooldown = d.circuit_cooldown;
  breaker.ramp_interval = d.circuit_ramp_interval;
  // A Retry-After sets the open circuit's next request, floored like the retry policy floors
  // it (and never later than the cool-down).
  breaker.min_probe_interval = std::min(o.retry.min_retry_after, d.circuit_cooldown);
  return o;
}

}  // namespace hookd::app
