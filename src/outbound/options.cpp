// DispatcherOptions from the [delivery] (and [server]) configuration.
#include <algorithm>
#include <limits>

#include "config/config.hpp"
#include "config/retry_policy.hpp"
#include "outbound/dispatcher.hpp"

namespace hookd::outbound {

DispatcherOptions DispatcherOptions::from(const config::Config& config) {
  const auto& d = config.delivery;
  DispatcherOptions o;
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
  // 0 turns the breaker off: a threshold no endpoint reaches.
  o.gate.breaker.failure_threshold = d.circuit_failure_threshold > 0
                                         ? d.circuit_failure_threshold
                                         : std::numeric_limits<int>::max();
  o.gate.breaker.base_cooldown = d.circuit_cooldown;
  // The open period doubles per failed probe up to 20x the first one (30 s -> 10 min by
  // default), so a shorter cool-down also keeps an endpoint that comes back from waiting
  // minutes for its next probe.
  o.gate.breaker.max_cooldown = d.circuit_cooldown * 20;
  return o;
}

}  // namespace hookd::outbound
