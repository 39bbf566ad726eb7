// Per-endpoint circuit breaker (SPEC §3 "Isolation"): stops hammering an endpoint that keeps
// failing and probes it again later, without a thundering herd when it recovers.
//
//   closed    --N consecutive failures-->          open (cool-down k = 1)
//   open      --cool-down elapsed, allow()-->       half-open
//   half-open --allow()-->                          exactly ONE probe; others are refused
//   half-open --probe succeeds-->                   closed (all counters reset)
//   half-open --probe fails-->                      open (cool-down k + 1)
//
// Cool-down k = min(base * 2^(k-1), max) * (1 + jitter_ratio * (2 * jitter_sample - 1)),
// jitter_sample in [0, 1) drawn by the caller, so that endpoints that failed together do
// not all probe at the same instant.
//
// Which outcomes are failures is the caller's decision (the retry policy's classification):
// it reports success, failure, or release() for an outcome that says nothing about the
// endpoint's health (cancelled, refused before sending).
//
// Every granted request carries a CircuitPermit stamped with the breaker's epoch, which
// changes on every transition. Results of requests admitted before the last transition
// (in flight when the circuit opened, or a probe that timed out and was replaced) are
// stale and ignored, so they can neither count twice nor be mistaken for the probe.
//
// A probe that never reports frees its slot after probe_timeout (a safety net; the HTTP
// client's own total timeout should always report first).
//
// Transitions are returned as values (CircuitTransition) so metrics and the audit log can
// count "circuit opened" without the breaker doing any I/O.
//
// Pure: time and randomness are parameters. Thread-safety: not thread-safe; the dispatcher
// owns one per endpoint and uses it under its lock.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "hookd/result.hpp"
#include "hookd/retry.hpp"  // TimePoint, Duration

namespace hookd {

enum class CircuitState { kClosed, kOpen, kHalfOpen };

// "closed", "open", "half_open".
std::string_view to_string(CircuitState state);

struct CircuitBreakerConfig {
  int failure_threshold = 5;  // consecutive failures that open a closed circuit (>= 1)
  Duration base_cooldown = std::chrono::seconds(30);  // the first open period
  Duration max_cooldown = std::chrono::minutes(10);   // cap on the growth (before jitter)
  double jitter_ratio = 0.2;                          // cool-down spread: +-20 %; in [0, 1)
  Duration probe_timeout = std::chrono::minutes(2);   // a silent probe frees its slot after this

  // kInvalidArgument naming the field when a value is out of range.
  Status validate() const;
};

struct CircuitTransition {
  CircuitState from = CircuitState::kClosed;
  CircuitState to = CircuitState::kClosed;
  TimePoint at{};
  int consecutive_failures = 0;  // at the time of the transition
  int opens_in_a_row = 0;        // how many times it opened without closing in between
  TimePoint next_probe_at{};     // to == kOpen: when the probe becomes allowed
};

struct CircuitPermit {
  bool granted = false;
  bool probe = false;       // the single half-open probe
  std::uint64_t epoch = 0;  // the breaker period that granted it
  // Set when this allow() moved the breaker from open to half-open.
  std::optional<CircuitTransition> transition;

  explicit operator bool() const { return granted; }
};

class CircuitBreaker {
 public:
  static Result<CircuitBreaker> create(CircuitBreakerConfig config);

  // The state as seen at `now`: an open circuit whose cool-down has elapsed is half-open.
  CircuitState state(TimePoint now) const;

  // Whether allow(now) would grant, without changing anything.
  bool would_allow(TimePoint now) const;

  // Asks to send one request. In half-open only the first caller gets a (probe) permit.
  CircuitPermit allow(TimePoint now);

  // Reports the outcome of a granted request. Stale permits are ignored (nullopt).
  std::optional<CircuitTransition> record_success(const CircuitPermit& permit, TimePoint now);
  std::optional<CircuitTransition> record_failure(const CircuitPermit& permit, TimePoint now,
                                                  double jitter_sample);
  // A granted request ended without telling anything about health: frees the probe slot.
  void release(const CircuitPermit& permit);

  // When a request may next be tried: open -> end of the cool-down; half-open with a probe
  // out -> when its slot frees by timeout; otherwise nullopt (closed, or a probe may go now).
  std::optional<TimePoint> next_probe_at(TimePoint now) const;

  int consecutive_failures() const { return consecutive_failures_; }
  int opens_in_a_row() const { return opens_in_a_row_; }
  const CircuitBreakerConfig& config() const { return config_; }

  // The cool-down after the k-th open in a row (k >= 1), jitter applied.
  Duration cooldown(int opens_in_a_row, double jitter_sample) const;

 private:
  explicit CircuitBreaker(CircuitBreakerConfig config) : config_(config) {}

  bool probe_slot_free(TimePoint now) const;
  bool is_current(const CircuitPermit& permit) const;
  CircuitTransition move_to(CircuitState to, TimePoint now);
  CircuitTransition open(TimePoint now, double jitter_sample);

  CircuitBreakerConfig config_;
  CircuitState state_ = CircuitState::kClosed;  // stored; see state(now) for the effective one
  std::uint64_t epoch_ = 0;
  int consecutive_failures_ = 0;
  int opens_in_a_row_ = 0;
  TimePoint open_until_{};  // kOpen
  bool probe_out_ = false;  // kHalfOpen
  TimePoint probe_started_{};
};

}  // namespace hookd
