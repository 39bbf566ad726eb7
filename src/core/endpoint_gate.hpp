// EndpointGate: the one question the dispatcher asks before each delivery to an endpoint —
// "may I send now?" — combining the endpoint's circuit breaker, concurrency cap and rate
// limiter (SPEC §3 "Isolation"; ACCEPTANCE A07, A08).
//
// admit(now) answers
//   kAdmit  the delivery may go; keep the permit and pass it to finish() afterwards;
//   kWait   ask again at retry_at (circuit open until then, or rate limit);
//   kBusy   ask again after a finish() on this endpoint (concurrency cap reached, or the
//           half-open probe is out; for the probe retry_at is the latest time to re-ask).
// The checks run in this order, and nothing is consumed unless all pass: circuit, then
// concurrency, then rate. So a refused delivery spends no token and no probe.
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
  kCircuitOpen,       // kWait until the cool-down ends
  kProbeInFlight,     // kBusy: half-open and the single probe is out
  kConcurrencyLimit,  // kBusy: max_in_flight requests are out
  kRateLimited,       // kWait until the next token
};

// "admit", "wait", "busy"; "none", "circuit_open", "probe_in_flight", "concurrency_limit",
// "rate_limited".
std::string_view to_string(GateVerdict verdict);
std::string_view to_string(GateReason reason);

struct Admission {
  GateVerdict verdict = GateVerdict::kBusy;
  GateReason reason = GateReason::kNone;
  std::optional<TimePoint> retry_at;  // kWait: always; kBusy: only for kProbeInFlight
  CircuitPermit permit;               // kAdmit: hand back to finish()
  // Set when this admit() moved the circuit from open to half-open (for metrics/audit).
  std::optional<CircuitTransition> transition;

  bool admitted() const { return verdict == GateVerdict::kAdmit; }
};

// What one finished delivery says about the endpoint's health; the caller classifies it
// (e.g. from the retry policy: timeouts and 5xx are failures).
enum class EndpointHealth {
  kHealthy,  // the endpoint answered as it should
  kFailed,   // counts towards opening the circuit
  kNeutral,  // says nothing (cancelled, refused before sending): frees the probe slot
};

class EndpointGate {
 public:
  // kInvalidArgument when the breaker config is invalid.
  static Result<EndpointGate> create(const EndpointGateConfig& config, TimePoint now);

  Admission admit(TimePoint now);

  // Ends an admitted delivery. jitter_sample in [0, 1) is used if the circuit opens.
  // Returns the circuit transition it caused, if any.
  std::optional<CircuitTransition> finish(const CircuitPermit& permit, EndpointHealth health,
                                          TimePoint now, double jitter_sample);

  // Runtime changes (endpoint updated); the breaker keeps its state.
  void set_rate_limit(RateLimitConfig rate, TimePoint now) { rate_.reconfigure(rate, now); }
  void set_max_in_flight(std::uint32_t cap) { in_flight_.set_cap(cap); }

  const CircuitBreaker& breaker() const { return breaker_; }
  const RateLimiter& rate_limiter() const { return rate_; }
  const ConcurrencyLimit& concurrency() const { return in_flight_; }

 private:
  EndpointGate(CircuitBreaker breaker, RateLimiter rate, ConcurrencyLimit in_flight)
      : breaker_(breaker), rate_(rate), in_flight_(in_flight) {}

  CircuitBreaker breaker_;
  RateLimiter rate_;
  ConcurrencyLimit in_flight_;
};

}  // namespace hookd
