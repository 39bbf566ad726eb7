// Per-endpoint rate limiter (SPEC §3 "Isolation", Svix `rateLimit`: messages per second).
// A token bucket: `per_second` tokens are added per second up to `burst`; each delivery
// takes one. A rate of 0 means unlimited (Svix: rateLimit absent).
//
// When no token is left, the limiter says when the next one will be there, so the
// dispatcher can schedule the delivery instead of polling.
//
// Exact arithmetic: the level is kept in integer units of 1/1000 token, so one millisecond
// at r tokens/s adds exactly r units. No floating point, no drift over long runs; the
// fractional remainder of a token carries over from one refill to the next. Besides
// `burst` tokens the bucket holds up to one millisecond of refill (rate - 1 units), so that
// a caller who can only act on whole milliseconds still gets the full rate: at 3/s with a
// burst of 1 the token due at 333.3 ms is taken at 334 ms and the next is still due at
// 666.7 ms, not 667.3 ms. This adds a token to the burst only above 1000 messages/s.
//
// Pure: time is a parameter. A clock that steps back is treated as "no time has passed".
// Thread-safety: not thread-safe; the dispatcher owns one per endpoint and uses it under its
// lock.
#pragma once

#include <cstdint>

#include "hookd/retry.hpp"  // TimePoint, Duration

namespace hookd {

struct RateLimitConfig {
  std::uint32_t per_second = 0;  // messages per second; 0 = unlimited
  std::uint32_t burst = 0;       // bucket size in messages; 0 = max(1, per_second)
};

// The answer of try_acquire(): granted, or the earliest time a token is available.
struct RateGrant {
  bool granted = false;
  TimePoint retry_at{};  // when !granted: the earliest time try_acquire() can succeed

  explicit operator bool() const { return granted; }
};

class RateLimiter {
 public:
  // The bucket starts full.
  explicit RateLimiter(RateLimitConfig config = {}, TimePoint now = {});

  // Takes one token if there is one at `now`.
  RateGrant try_acquire(TimePoint now);

  // The earliest time >= now at which a token is available (now when one is there).
  TimePoint next_allowed(TimePoint now) const;

  // Whole tokens available at `now` (the burst when unlimited). For tests and metrics.
  std::uint64_t tokens_available(TimePoint now) const;

  // Changes the rate at runtime (endpoint updated). Time up to `now` is credited at the old
  // rate; the level is then capped at the new burst. Going from unlimited to limited starts
  // with a full bucket.
  void reconfigure(RateLimitConfig config, TimePoint now);

  bool unlimited() const { return config_.per_second == 0; }
  const RateLimitConfig& config() const { return config_; }
  std::uint32_t burst() const;  // effective bucket size in messages

 private:
  static constexpr std::int64_t kUnitsPerToken = 1000;  // 1 ms of refill at 1 message/s

  std::int64_t ceiling() const;                // the most units the bucket holds
  std::int64_t level_at(TimePoint now) const;  // in units, capped at ceiling()
  void refill(TimePoint now);

  RateLimitConfig config_;
  std::int64_t capacity_ = 0;  // burst in units
  std::int64_t level_ = 0;     // in units, as of last_
  TimePoint last_{};
};

}  // namespace hookd
