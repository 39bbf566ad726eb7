#include "core/circuit_breaker.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace hookd {

std::string_view to_string(CircuitState state) {
  switch (state) {
    case CircuitState::kClosed:
      return "closed";
    case CircuitState::kOpen:
      return "open";
    case CircuitState::kHalfOpen:
      return "half_open";
  }
  return "unknown";
}

Status CircuitBreakerConfig::validate() const {
  auto invalid = [](const char* what) {
    return fail(ErrorCode::kInvalidArgument, std::string("circuit breaker: ") + what);
  };
  if (!(failure_rate > 0.0 && failure_rate <= 1.0))
    return invalid("failure_rate must be in (0, 1]");
  if (min_attempts < 1) return invalid("min_attempts must be >= 1");
  if (window < Duration(10)) return invalid("window must be >= 10ms");
  if (cooldown <= Duration::zero()) return invalid("cooldown must be > 0");
  if (min_probe_interval <= Duration::zero() || min_probe_interval > cooldown) {
    return invalid("min_probe_interval must be > 0 and <= cooldown");
  }
  if (!(jitter_ratio >= 0.0 && jitter_ratio < 1.0))
    return invalid("jitter_ratio must be in [0, 1)");
  if (probe_timeout <= Duration::zero()) return invalid("probe_timeout must be > 0");
  if (ramp_interval <= Duration::zero()) return invalid("ramp_interval must be > 0");
  if (ramp_to < 1) return invalid("ramp_to must be >= 1");
  return {};
}

Result<CircuitBreaker> CircuitBreaker::create(CircuitBreakerConfig config) {
  if (auto valid = config.validate(); !valid) return std::unexpected(valid.error());
  return CircuitBreaker(config);
}

Duration CircuitBreaker::probe_interval(double jitter_sample,
                                        std::optional<Duration> retry_after) const {
  if (retry_after) return std::clamp(*retry_after, config_.min_probe_interval, config_.cooldown);
  const double sample = std::clamp(jitter_sample, 0.0, 1.0);
  const double factor = 1.0 + config_.jitter_ratio * (2.0 * sample - 1.0);
  const double delay = static_cast<double>(config_.cooldown.count()) * factor;
  return Duration(std::max<std::int64_t>(1, std::llround(delay)));
}

std::uint32_t CircuitBreaker::ramp_cap(TimePoint now) const {
  const auto steps = std::max<std::int64_t>(0, (now - ramp_started_) / config_.ramp_interval);
  const std::uint32_t cap = steps >= 31 ? UINT32_MAX : (1u << steps);
  return std::min(cap, config_.ramp_to);
}

bool CircuitBreaker::ramp_done(TimePoint now) const {
  return state_ == CircuitState::kHalfOpen && ramp_cap(now) >= config_.ramp_to;
}

CircuitState CircuitBreaker::state(TimePoint now) const {
  return ramp_done(now) ? CircuitState::kClosed : state_;
}

bool CircuitBreaker::trickle_slot_free(TimePoint now) const {
  return !trickle_out_ || now >= trickle_started_ + config_.probe_timeout;
}

bool CircuitBreaker::would_allow(TimePoint now) const {
  if (state_ != CircuitState::kOpen) return true;
  return now >= next_probe_at_ && trickle_slot_free(now);
}

std::optional<std::uint32_t> CircuitBreaker::concurrency_cap(TimePoint now) const {
  switch (state(now)) {
    case CircuitState::kOpen:
      return 1;
    case CircuitState::kHalfOpen:
      return ramp_cap(now);
    case CircuitState::kClosed:
      return std::nullopt;
  }
  return std::nullopt;
}

bool CircuitBreaker::trickle_in_flight(TimePoint now) const {
  return state_ == CircuitState::kOpen && !trickle_slot_free(now);
}

std::optional<TimePoint> CircuitBreaker::next_probe_at(TimePoint now) const {
  if (state_ != CircuitState::kOpen) return std::nullopt;
  if (!trickle_slot_free(now)) return trickle_started_ + config_.probe_timeout;
  if (now < next_probe_at_) return next_probe_at_;
  return std::nullopt;
}

std::optional<TimePoint> CircuitBreaker::next_ramp_step(TimePoint now) const {
  if (state(now) != CircuitState::kHalfOpen) return std::nullopt;
  const auto steps = std::max<std::int64_t>(0, (now - ramp_started_) / config_.ramp_interval);
  return ramp_started_ + config_.ramp_interval * (steps + 1);
}

CircuitTransition CircuitBreaker::move_to(CircuitState to, TimePoint now) {
  CircuitTransition transition;
  transition.from = state_;
  transition.to = to;
  transition.at = now;
  transition.window = window_.totals(now);
  state_ = to;
  // Results of requests admitted before opening or half-opening must not count; the ramp's
  // own requests still count after it closes.
  if (to != CircuitState::kClosed) ++epoch_;
  trickle_out_ = false;
  return transition;
}

CircuitTransition CircuitBreaker::open(TimePoint now, double jitter_sample,
                                       std::optional<Duration> retry_after) {
  next_probe_at_ = now + probe_interval(jitter_sample, retry_after);
  CircuitTransition transition = move_to(CircuitState::kOpen, now);
  transition.next_probe_at = next_probe_at_;
  window_.clear();
  return transition;
}

std::optional<CircuitTransition> CircuitBreaker::tick(TimePoint now) {
  if (!ramp_done(now)) return std::nullopt;
  return move_to(CircuitState::kClosed, now);
}

CircuitPermit CircuitBreaker::allow(TimePoint now) {
  tick(now);  // the caller collects the transition with its own tick() first
  if (!would_allow(now)) return {};
  CircuitPermit permit;
  permit.granted = true;
  if (state_ == CircuitState::kOpen) {
    if (trickle_out_) ++epoch_;  // the silent request timed out: its late result must not count
    permit.trickle = true;
    trickle_out_ = true;
    trickle_started_ = now;
  }
  permit.epoch = epoch_;
  return permit;
}

bool CircuitBreaker::is_current(const CircuitPermit& permit) const {
  assert(permit.granted && "reporting the outcome of a request that was not granted");
  return permit.granted && permit.epoch == epoch_;
}

bool CircuitBreaker::rate_reached(WindowTotals totals) const {
  return totals.attempts >= config_.min_attempts &&
         static_cast<double>(totals.failures) >=
             config_.failure_rate * static_cast<double>(totals.attempts) - 1e-9;
}

std::optional<CircuitTransition> CircuitBreaker::record_success(const CircuitPermit& permit,
                                                                TimePoint now) {
  if (!is_current(permit)) return std::nullopt;
  std::optional<CircuitTransition> transition = tick(now);
  if (state_ == CircuitState::kOpen) {
    transition = move_to(CircuitState::kHalfOpen, now);
    ramp_started_ = now;
    window_.clear();
  }
  window_.add(now, false);
  return transition;
}

std::optional<CircuitTransition> CircuitBreaker::record_failure(
    const CircuitPermit& permit, TimePoint now, double jitter_sample,
    std::optional<Duration> retry_after) {
  if (!is_current(permit) || !config_.enabled) return std::nullopt;
  std::optional<CircuitTransition> closed = tick(now);
  if (state_ == CircuitState::kOpen) {  // the trickle request failed: wait for the next one
    trickle_out_ = false;
    next_probe_at_ = now + probe_interval(jitter_sample, retry_after);
    return std::nullopt;
  }
  window_.add(now, true);
  const WindowTotals totals = window_.totals(now);
  const bool sustained =
      state_ == CircuitState::kHalfOpen || window_.span(now) * 2 >= config_.window;
  if (sustained && rate_reached(totals)) return open(now, jitter_sample, retry_after);
  return closed;
}

void CircuitBreaker::release(const CircuitPermit& permit) {
  if (is_current(permit) && permit.trickle && state_ == CircuitState::kOpen) trickle_out_ = false;
}

}  // namespace hookd
