// Per-endpoint circuit breaker (SPEC §3 "Isolation"; ACCEPTANCE A07, A39): stops hammering
// an endpoint that keeps failing, keeps a trickle of requests going to notice when it is
// back, and ramps its traffic up again instead of releasing the whole backlog at once.
//
//   closed    --sustained failure rate-->   open
//   open      --a trickle request succeeds-->   half-open (the ramp)
//   half-open --failure rate over the ramp-->   open
//   half-open --ramp reached ramp_to-->         closed
//
// Closed: every outcome goes into an OutcomeWindow of the last `window`. The circuit opens
// on a failure when, in that window, at least `min_attempts` attempts ended, at least
// `failure_rate` of them failed, and they have been going on for at least half the window
// (span). The span rule is what makes it a *sustained* rate: a burst of failures at one
// instant (the first attempts of messages published together, each of which will succeed
// on a later attempt) cannot open it alone; an endpoint that fails two of every three
// requests stays below the default 90 % and keeps its full traffic.
//
// Open: a trickle — at most one request in flight (concurrency_cap() = 1) and at most one
// started per probe interval. The interval is the cool-down (jittered), or the Retry-After of
// the failing answer when it gave one, clamped to [min_probe_interval, cooldown]. The
// requests are ordinary due deliveries (the dispatcher's choice); a success moves to
// half-open, a failure schedules the next one. A request that never reports frees its slot
// after probe_timeout (a safety net; the HTTP client's own timeout reports first).
//
// Half-open (the ramp, "slow start"): concurrency_cap() starts at 1 and doubles every
// `ramp_interval` (1, 2, 4, ...); when it reaches `ramp_to` (the endpoint's own concurrency
// cap) the circuit is closed. Outcomes go into a fresh window; a failure rate of at least
// `failure_rate` over at least `min_attempts` of them reopens it (no span rule: the endpoint
// has just proven unhealthy).
//
// Which outcomes are failures is the caller's decision (the retry policy's classification);
// release() reports an outcome that says nothing about health (cancelled, refused before
// sending). Every granted request carries a CircuitPermit stamped with the breaker's epoch,
// which changes when the circuit opens and when it half-opens: results of requests admitted
// before (in flight when the circuit opened, or a silent trickle request that was replaced)
// are ignored, so they can neither count twice nor be mistaken for the trickle's answer.
// Transitions are returned as values (CircuitTransition) so metrics and logs can count them
// without the breaker doing any I/O; the move from half-open to closed happens with time, so
// the caller collects it with tick().
//
// Pure: time and randomness are parameters. Thread-safety: not thread-safe; the dispatcher
// owns one per endpoint and uses it under its lock.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/outcome_window.hpp"
#include "hookd/result.hpp"
#include "hookd/retry.hpp"  // TimePoint, Duration

namespace hookd {

enum class CircuitState { kClosed, kOpen, kHalfOpen };

// "closed", "open", "half_open".
std::string_view to_string(CircuitState state);

struct CircuitBreakerConfig {
  bool enabled = true;                         // false: always closed (no breaker)
  double failure_rate = 0.9;                   // share of failed attempts that opens it; in (0, 1]
  int min_attempts = 20;                       // fewer attempts in the window never open it (>= 1)
  Duration window = std::chrono::seconds(30);  // the failure-rate window (>= 10 ms)
  Duration cooldown = std::chrono::seconds(30);           // open: one request per cool-down
  Duration min_probe_interval = std::chrono::seconds(1);  // floor for a Retry-After
  double jitter_ratio = 0.2;                              // cool-down spread +-20 %; [0, 1)
  Duration probe_timeout = std::chrono::minutes(2);       // a silent request frees its slot
  Duration ramp_interval = std::chrono::seconds(1);       // half-open: the cap doubles each
  std::uint32_t ramp_to = 32;  // half-open ends when the cap reaches this (>= 1)

  // kInvalidArgument naming the field when a value is out of range.
  Status validate() const;
};

struct CircuitTransition {
  CircuitState from = CircuitState::kClosed;
  CircuitState to = CircuitState::kClosed;
  TimePoint at{};
  WindowTotals window;        // the window's counts at the transition
  TimePoint next_probe_at{};  // to == kOpen: when the first trickle request may go
};

struct CircuitPermit {
  bool granted = false;
  bool trickle = false;     // granted while open: the one request of this probe interval
  std::uint64_t epoch = 0;  // the breaker period that granted it

  explicit operator bool() const { return granted; }
};

class CircuitBreaker {
 public:
  static Result<CircuitBreaker> create(CircuitBreakerConfig config);

  // The state at `now` (a half-open circuit whose ramp is complete is closed).
  CircuitState state(TimePoint now) const;

  // Whether allow(now) would grant, without changing anything. Closed and half-open always
  // grant: their limit is concurrency_cap(), which the caller enforces with its own count.
  bool would_allow(TimePoint now) const;

  // The most requests the breaker lets be in flight: open 1, half-open the ramp's cap,
  // closed nullopt (no limit of its own).
  std::optional<std::uint32_t> concurrency_cap(TimePoint now) const;

  // Asks to send one request.
  CircuitPermit allow(TimePoint now);

  // Reports the outcome of a granted request; stale permits are ignored (nullopt).
  // retry_after: what the failing answer asked for (Retry-After), if anything.
  std::optional<CircuitTransition> record_success(const CircuitPermit& permit, TimePoint now);
  std::optional<CircuitTransition> record_failure(const CircuitPermit& permit, TimePoint now,
                                                  double jitter_sample,
                                                  std::optional<Duration> retry_after = {});
  // A granted request ended without telling anything about health: frees the trickle slot.
  void release(const CircuitPermit& permit);

  // Applies the transition time alone causes (half-open -> closed when the ramp completes).
  std::optional<CircuitTransition> tick(TimePoint now);

  // Open: when a request may next go (the probe interval's end, or when a silent one's slot
  // frees by timeout); otherwise nullopt.
  std::optional<TimePoint> next_probe_at(TimePoint now) const;
  // Open with its one request out.
  bool trickle_in_flight(TimePoint now) const;
  // Half-open: when the ramp's cap next doubles; otherwise nullopt.
  std::optional<TimePoint> next_ramp_step(TimePoint now) const;

  // The endpoint's own concurrency cap changed (0 = unlimited): where the ramp ends.
  void set_ramp_to(std::uint32_t cap) { config_.ramp_to = cap == 0 ? kUnlimitedRampTo : cap; }
  static constexpr std::uint32_t kUnlimitedRampTo = 1024;

  WindowTotals window_totals(TimePoint now) const { return window_.totals(now); }
  const CircuitBreakerConfig& config() const { return config_; }

  // How long the circuit stays closed to new requests after a failure while open: the
  // Retry-After when given (clamped), else the cool-down with jitter applied.
  Duration probe_interval(double jitter_sample, std::optional<Duration> retry_after) const;

 private:
  explicit CircuitBreaker(CircuitBreakerConfig config) : config_(config), window_(config.window) {}

  std::uint32_t ramp_cap(TimePoint now) const;
  bool ramp_done(TimePoint now) const;
  bool trickle_slot_free(TimePoint now) const;
  bool is_current(const CircuitPermit& permit) const;
  bool rate_reached(WindowTotals totals) const;
  CircuitTransition move_to(CircuitState to, TimePoint now);
  CircuitTransition open(TimePoint now, double jitter_sample, std::optional<Duration> retry_after);

  CircuitBreakerConfig config_;
  OutcomeWindow window_;
  CircuitState state_ = CircuitState::kClosed;  // stored; see state(now) for the effective one
  std::uint64_t epoch_ = 0;
  TimePoint next_probe_at_{};  // kOpen
  bool trickle_out_ = false;   // kOpen
  TimePoint trickle_started_{};
  TimePoint ramp_started_{};  // kHalfOpen
};

}  // namespace hookd
