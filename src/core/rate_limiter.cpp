#include "core/rate_limiter.hpp"

#include <algorithm>

namespace hookd {
namespace {

std::uint32_t effective_burst(const RateLimitConfig& config) {
  if (config.burst != 0) return config.burst;
  return std::max<std::uint32_t>(1, config.per_second);
}

}  // namespace

RateLimiter::RateLimiter(RateLimitConfig config, TimePoint now)
    : config_(config),
      capacity_(static_cast<std::int64_t>(effective_burst(config)) * kUnitsPerToken),
      level_(capacity_),
      last_(now) {}

std::uint32_t RateLimiter::burst() const { return effective_burst(config_); }

std::int64_t RateLimiter::ceiling() const {
  if (unlimited()) return capacity_;
  return capacity_ + static_cast<std::int64_t>(config_.per_second) - 1;
}

std::int64_t RateLimiter::level_at(TimePoint now) const {
  if (unlimited()) return capacity_;
  const std::int64_t elapsed_ms = (now - last_).count();
  if (elapsed_ms <= 0) return level_;
  const std::int64_t rate = config_.per_second;  // units per millisecond
  const std::int64_t full = ceiling();
  // Milliseconds until full; checked first so that rate * elapsed cannot overflow after a
  // long idle period.
  const std::int64_t ms_to_full = (full - level_ + rate - 1) / rate;
  if (elapsed_ms >= ms_to_full) return full;
  return level_ + rate * elapsed_ms;
}

void RateLimiter::refill(TimePoint now) {
  level_ = level_at(now);
  last_ = std::max(last_, now);
}

RateGrant RateLimiter::try_acquire(TimePoint now) {
  if (unlimited()) return {true, now};
  refill(now);
  if (level_ >= kUnitsPerToken) {
    level_ -= kUnitsPerToken;
    return {true, now};
  }
  return {false, next_allowed(now)};
}

TimePoint RateLimiter::next_allowed(TimePoint now) const {
  const std::int64_t level = level_at(now);
  if (level >= kUnitsPerToken) return now;
  const std::int64_t rate = config_.per_second;
  const std::int64_t wait_ms = (kUnitsPerToken - level + rate - 1) / rate;
  // If the clock stepped back, level_at() credited nothing; count from last_.
  return std::max(now, last_) + Duration(wait_ms);
}

std::uint64_t RateLimiter::tokens_available(TimePoint now) const {
  return static_cast<std::uint64_t>(level_at(now) / kUnitsPerToken);
}

void RateLimiter::reconfigure(RateLimitConfig config, TimePoint now) {
  const bool was_unlimited = unlimited();
  refill(now);
  config_ = config;
  capacity_ = static_cast<std::int64_t>(effective_burst(config)) * kUnitsPerToken;
  level_ = was_unlimited ? capacity_ : std::min(level_, ceiling());
}

}  // namespace hookd
