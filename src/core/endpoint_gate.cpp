#include "core/endpoint_gate.hpp"

#include <cassert>

namespace hookd {
namespace {

Admission refuse(GateVerdict verdict, GateReason reason, std::optional<TimePoint> retry_at) {
  Admission admission;
  admission.verdict = verdict;
  admission.reason = reason;
  admission.retry_at = retry_at;
  return admission;
}

}  // namespace

std::string_view to_string(GateVerdict verdict) {
  switch (verdict) {
    case GateVerdict::kAdmit:
      return "admit";
    case GateVerdict::kWait:
      return "wait";
    case GateVerdict::kBusy:
      return "busy";
  }
  return "unknown";
}

std::string_view to_string(GateReason reason) {
  switch (reason) {
    case GateReason::kNone:
      return "none";
    case GateReason::kCircuitOpen:
      return "circuit_open";
    case GateReason::kProbeInFlight:
      return "probe_in_flight";
    case GateReason::kConcurrencyLimit:
      return "concurrency_limit";
    case GateReason::kRampUp:
      return "ramp_up";
    case GateReason::kRateLimited:
      return "rate_limited";
  }
  return "unknown";
}

Result<EndpointGate> EndpointGate::create(const EndpointGateConfig& config, TimePoint now) {
  auto breaker = CircuitBreaker::create(config.breaker);
  if (!breaker) return std::unexpected(breaker.error());
  breaker->set_ramp_to(config.max_in_flight);  // the ramp ends at the endpoint's own cap
  return EndpointGate(*breaker, RateLimiter(config.rate, now),
                      ConcurrencyLimit(config.max_in_flight));
}

Admission EndpointGate::admit(TimePoint now) {
  const std::optional<CircuitTransition> ticked = breaker_.tick(now);
  Admission admission = check(now);
  admission.transition = ticked;
  return admission;
}

Admission EndpointGate::check(TimePoint now) {
  if (!breaker_.would_allow(now)) {
    if (breaker_.trickle_in_flight(now)) {
      return refuse(GateVerdict::kBusy, GateReason::kProbeInFlight, breaker_.next_probe_at(now));
    }
    return refuse(GateVerdict::kWait, GateReason::kCircuitOpen, breaker_.next_probe_at(now));
  }
  if (!in_flight_.has_room()) {
    return refuse(GateVerdict::kBusy, GateReason::kConcurrencyLimit, std::nullopt);
  }
  if (const auto cap = breaker_.concurrency_cap(now); cap && in_flight_.in_flight() >= *cap) {
    return refuse(GateVerdict::kBusy, GateReason::kRampUp, breaker_.next_ramp_step(now));
  }
  if (const TimePoint next = rate_.next_allowed(now); next > now) {
    return refuse(GateVerdict::kWait, GateReason::kRateLimited, next);
  }
  // Every check passed at `now`: commit all three.
  Admission admission;
  admission.verdict = GateVerdict::kAdmit;
  admission.permit = breaker_.allow(now);
  const bool started = in_flight_.try_start();
  const bool token = rate_.try_acquire(now).granted;
  assert(admission.permit.granted && started && token);
  (void)started;
  (void)token;
  return admission;
}

std::optional<CircuitTransition> EndpointGate::finish(const CircuitPermit& permit,
                                                      EndpointHealth health, TimePoint now,
                                                      double jitter_sample,
                                                      std::optional<Duration> retry_after) {
  in_flight_.finish();
  switch (health) {
    case EndpointHealth::kHealthy:
      return breaker_.record_success(permit, now);
    case EndpointHealth::kFailed:
      return breaker_.record_failure(permit, now, jitter_sample, retry_after);
    case EndpointHealth::kNeutral:
      breaker_.release(permit);
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace hookd
