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
  if (failure_threshold < 1) {
    return fail(ErrorCode::kInvalidArgument, "circuit breaker: failure_threshold must be >= 1");
  }
  if (base_cooldown <= Duration::zero()) {
    return fail(ErrorCode::kInvalidArgument, "circuit breaker: base_cooldown must be > 0");
  }
  if (max_cooldown < base_cooldown) {
    return fail(ErrorCode::kInvalidArgument,
                "circuit breaker: max_cooldown must be >= base_cooldown");
  }
  if (!(jitter_ratio >= 0.0 && jitter_ratio < 1.0)) {
    return fail(ErrorCode::kInvalidArgument, "circuit breaker: jitter_ratio must be in [0, 1)");
  }
  if (probe_timeout <= Duration::zero()) {
    return fail(ErrorCode::kInvalidArgument, "circuit breaker: probe_timeout must be > 0");
  }
  return {};
}

Result<CircuitBreaker> CircuitBreaker::create(CircuitBreakerConfig config) {
  if (auto valid = config.validate(); !valid) return std::unexpected(valid.error());
  return CircuitBreaker(config);
}

Duration CircuitBreaker::cooldown(int opens_in_a_row, double jitter_sample) const {
  const std::int64_t base = config_.base_cooldown.count();
  const std::int64_t cap = config_.max_cooldown.count();
  // base * 2^(k-1), saturating at the cap without overflowing.
  std::int64_t delay = base;
  for (int k = 1; k < opens_in_a_row && delay < cap; ++k) delay = delay > cap / 2 ? cap : delay * 2;
  delay = std::min(delay, cap);
  const double sample = std::clamp(jitter_sample, 0.0, 1.0);
  const double factor = 1.0 + config_.jitter_ratio * (2.0 * sample - 1.0);
  return Duration(std::max<std::int64_t>(1, std::llround(static_cast<double>(delay) * factor)));
}

CircuitState CircuitBreaker::state(TimePoint now) const {
  if (state_ == CircuitState::kOpen && now >= open_until_) return CircuitState::kHalfOpen;
  return state_;
}

bool CircuitBreaker::probe_slot_free(TimePoint now) const {
  return !probe_out_ || now >= probe_started_ + config_.probe_timeout;
}

bool CircuitBreaker::would_allow(TimePoint now) const {
  switch (state_) {
    case CircuitState::kClosed:
      return true;
    case CircuitState::kOpen:
      return now >= open_until_;  // the first caller becomes the probe
    case CircuitState::kHalfOpen:
      return probe_slot_free(now);
  }
  return false;
}

CircuitTransition CircuitBreaker::move_to(CircuitState to, TimePoint now) {
  CircuitTransition transition;
  transition.from = state_;
  transition.to = to;
  transition.at = now;
  state_ = to;
  ++epoch_;
  probe_out_ = false;
  transition.consecutive_failures = consecutive_failures_;
  transition.opens_in_a_row = opens_in_a_row_;
  return transition;
}

CircuitTransition CircuitBreaker::open(TimePoint now, double jitter_sample) {
  ++opens_in_a_row_;
  open_until_ = now + cooldown(opens_in_a_row_, jitter_sample);
  CircuitTransition transition = move_to(CircuitState::kOpen, now);
  transition.next_probe_at = open_until_;
  return transition;
}

CircuitPermit CircuitBreaker::allow(TimePoint now) {
  if (!would_allow(now)) return {};
  CircuitPermit permit;
  permit.granted = true;
  if (state_ == CircuitState::kOpen) {
    permit.transition = move_to(CircuitState::kHalfOpen, now);
  } else if (state_ == CircuitState::kHalfOpen && probe_out_) {
    ++epoch_;  // the silent probe timed out: its late result must not count
  }
  if (state_ == CircuitState::kHalfOpen) {
    permit.probe = true;
    probe_out_ = true;
    probe_started_ = now;
  }
  permit.epoch = epoch_;
  return permit;
}

bool CircuitBreaker::is_current(const CircuitPermit& permit) const {
  assert(permit.granted && "reporting the outcome of a request that was not granted");
  return permit.granted && permit.epoch == epoch_ && state_ != CircuitState::kOpen;
}

std::optional<CircuitTransition> CircuitBreaker::record_success(const CircuitPermit& permit,
                                                                TimePoint now) {
  if (!is_current(permit)) return std::nullopt;
  consecutive_failures_ = 0;
  if (state_ != CircuitState::kHalfOpen) return std::nullopt;
  opens_in_a_row_ = 0;
  return move_to(CircuitState::kClosed, now);
}

std::optional<CircuitTransition> CircuitBreaker::record_failure(const CircuitPermit& permit,
                                                                TimePoint now,
                                                                double jitter_sample) {
  if (!is_current(permit)) return std::nullopt;
  ++consecutive_failures_;
  if (state_ == CircuitState::kHalfOpen || consecutive_failures_ >= config_.failure_threshold) {
    return open(now, jitter_sample);
  }
  return std::nullopt;
}

void CircuitBreaker::release(const CircuitPermit& permit) {
  if (is_current(permit) && permit.probe) probe_out_ = false;
}

std::optional<TimePoint> CircuitBreaker::next_probe_at(TimePoint now) const {
  if (state_ == CircuitState::kOpen && now < open_until_) return open_until_;
  if (state_ == CircuitState::kHalfOpen && !probe_slot_free(now)) {
    return probe_started_ + config_.probe_timeout;
  }
  return std::nullopt;
}

}  // namespace hookd
