// EndpointGate: the one question the dispatcher asks before each delivery to an endpoint —
// "may I send now?" — combining the endpoint's circuit breaker, concurrency cap and rate
// limiter (SPEC §3 "Isolation"; ACCEPTANCE A07, A08, A39).
//
// admit(now) answers
//   kAdmit  the delivery may go; keep the permit and pass it to finish() afterwards;
//   kWait   ask again at retry_at (open circuit until its next trickle request, or rate
//           limit);
//   kBusy   ask again after a finish() on this endpoint (concurrency cap reached: the
//           endpoint's own, the open circuit's 1, or the ramp's; or the open circuit's one
//           request is out). retry_at, when set, is the latest time to re-ask: the ramp's
//           next step, or when a silent trickle request's slot frees.
// The checks run in this order, and nothing is consumed unless all pass: circuit, then
// concurrency (the lower of the endpoint's cap and the breaker's), then rate. So a refused
// delivery spends no token and no trickle slot. The breaker ramps up to the endpoint's cap.
//
// A slow or failing endpoint only ever blocks its own gate; gates share nothing.
//
// Pure: time and randomness are parameters. Thread-safety: not thread-safe; the dispatcher
// owns one per endpoint and uses it under its lock.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/circuit_breaker.hpp"
#include "core/concurrency_limit.hpp"
#include "core/rate_limiter.hpp"
#include "hookd/result.hpp"
#include "hookd/retry.hpp"

namespace hookd {

struct EndpointGateConfig {
  RateLimitConfig rate;             // per_second 0 = unlimited
  std::uint32_t max_in_flight = 8;  // 0 = unlimited
  CircuitBreakerConfig breaker;
};

enum class GateVerdict { kAdmit, kWait, kBusy };

enum class GateReason {
  kNone,              // kAdmit
  kCircuitOpen,       // kWait until the open circuit's next trickle request may go
  kProbeInFlight,     // kBusy: open and its one trickle request is out
  kConcurrencyLimit,  // kBusy: max_in_flight requests are out
  kRampUp,            // kBusy: the breaker's cap (open: 1, half-open: the ramp) is reached
  kRateLimited,       // kWait until the next token
};

// "admit", "wait", "busy"; "none", "circuit_open", "probe_in_flight", "concurrency_limit",
// "ramp_up", "rate_limited".
std::string_view to_string(GateVerdict verdict);
std::string_view to_string(GateReason reason);

struct Admission {
  GateVerdict verdict = GateVerdict::kBusy;
  GateReason reason = GateReason::kNone;
  std::optional<TimePoint> retry_at;  // kWait: always; kBusy: see above
  CircuitPermit permit;               // kAdmit: hand back to finish()
  // Set when time alone moved the circuit (the ramp completed: closed), for metrics/logs.
  std::optional<CircuitTransition> transition;

  bool admitted() const { return verdict == GateVerdict::kAdmit; }
};

// What one finished delivery says about the endpoint's health; the caller classifies it
// (e.g. from the retry policy: timeouts and 5xx are failures).
enum class EndpointHealth {
  kHealthy,  // the endpoint answered as it should
  kFailed,   // counts towards opening the circuit
  kNeutral,  // says nothing (cancelled, refused before sending): frees the trickle slot
};

class EndpointGate {
 public:
  // kInvalidArgument when the breaker config is invalid.
  static Result<EndpointGate> create(const EndpointGateConfig& config, TimePoint now);

  Admission admit(TimePoint now);

  // Ends an admitted delivery. jitter_sample in [0, 1) and the failing answer's Retry-After
  // (if any) set the open circuit's next trickle request. Returns the transition it caused.
  std::optional<CircuitTransition> finish(const CircuitPermit& permit, EndpointHealth health,
                                          TimePoint now, double jitter_sample,
                                          std::optional<Duration> retry_after = std::nullopt);

  // The transition time alone causes (the ramp completed), if any: call it now and then so
  // an endpoint without traffic still reports its circuit closed.
  std::optional<CircuitTransition> tick(TimePoint now) { return breaker_.tick(now); }

  // Runtime changes (endpoint updated); the breaker keeps its state.
  void set_rate_limit(RateLimitConfig rate, TimePoint now) { rate_.reconfigure(rate, now); }
  void set_max_in_flight(std::uint32_t cap) {
    in_flight_.set_cap(cap);
    breaker_.set_ramp_to(cap);
  }

  const CircuitBreaker& breaker() const { return breaker_; }
  const RateLimiter& rate_limiter() const { return rate_; }
  const ConcurrencyLimit& concurrency() const { return in_flight_; }

 private:
  Admission check(TimePoint now);  // admit() without collecting the breaker's tick()
  EndpointGate(CircuitBreaker breaker, RateLimiter rate, ConcurrencyLimit in_flight)
      : breaker_(breaker), rate_(rate), in_flight_(in_flight) {}

  CircuitBreaker breaker_;
  RateLimiter rate_;
  ConcurrencyLimit in_flight_;
};

}  // namespace hookd
