// A08 at unit level: the per-endpoint rate limit (token bucket) grants exactly rate * time +
// burst over simulated time, says when the next token is due, and never drifts.
#include "core/rate_limiter.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <limits>

namespace hookd {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

const TimePoint kLimiterStart = TimePoint(seconds(1'700'000'000));

// Takes every token as soon as it is there, stepping time 1 ms at a time, over [from, to).
int greedy_per_ms(RateLimiter& limiter, TimePoint from, TimePoint to) {
  int granted = 0;
  for (TimePoint now = from; now < to; now += milliseconds(1)) {
    while (limiter.try_acquire(now)) ++granted;
  }
  return granted;
}

// Takes every token at the instant next_allowed() names (how the dispatcher schedules),
// over [from, to). Returns the grant times.
std::vector<TimePoint> greedy_scheduled(RateLimiter& limiter, TimePoint from, TimePoint to) {
  std::vector<TimePoint> grants;
  TimePoint now = from;
  while (now < to) {
    const RateGrant grant = limiter.try_acquire(now);
    if (grant) {
      grants.push_back(now);
    } else {
      EXPECT_GT(grant.retry_at, now);
      now = grant.retry_at;
    }
  }
  return grants;
}

TEST(RateLimiter, A08GreedyTenSecondsAtFiftyPerSecondGrantsRateTimesTimePlusBurst) {
  RateLimiter limiter({.per_second = 50}, kLimiterStart);
  EXPECT_EQ(limiter.burst(), 50u);
  const int granted = greedy_per_ms(limiter, kLimiterStart, kLimiterStart + seconds(10));
  EXPECT_GE(granted, 50 * 10 + 50 - 1);
  EXPECT_LE(granted, 50 * 10 + 50 + 1);
}

TEST(RateLimiter, A08ScheduledAcquisitionGrantsTheSameAndNeverWaitsTooEarly) {
  RateLimiter limiter({.per_second = 50}, kLimiterStart);
  const auto grants = greedy_scheduled(limiter, kLimiterStart, kLimiterStart + seconds(10));
  EXPECT_GE(grants.size(), 549u);
  EXPECT_LE(grants.size(), 551u);
}

TEST(RateLimiter, A08NoOneSecondWindowExceedsRatePlusBurst) {
  RateLimiter limiter({.per_second = 20, .burst = 5}, kLimiterStart);
  const auto grants = greedy_scheduled(limiter, kLimiterStart, kLimiterStart + seconds(30));
  std::deque<TimePoint> window;
  std::size_t worst = 0;
  for (const TimePoint t : grants) {
    window.push_back(t);
    while (window.front() <= t - seconds(1)) window.pop_front();
    worst = std::max(worst, window.size());
  }
  EXPECT_LE(worst, 20u + 5u);
  EXPECT_GE(worst, 20u);  // and the limit is reached: it does not throttle below the rate
}

TEST(RateLimiter, NoDriftOverAnHourAtRatesThatDoNotDivideASecond) {
  for (const std::uint32_t rate : {3u, 7u, 13u, 999u}) {
    RateLimiter limiter({.per_second = rate, .burst = 1}, kLimiterStart);
    const auto grants = greedy_scheduled(limiter, kLimiterStart, kLimiterStart + hours(1));
    const std::int64_t expected = std::int64_t{rate} * 3600 + 1;
    EXPECT_GE(static_cast<std::int64_t>(grants.size()), expected - 1) << rate;
    EXPECT_LE(static_cast<std::int64_t>(grants.size()), expected + 1) << rate;
  }
}

TEST(RateLimiter, RetryAtIsTheExactInstantOfTheNextToken) {
  RateLimiter limiter({.per_second = 4, .burst = 1}, kLimiterStart);
  ASSERT_TRUE(limiter.try_acquire(kLimiterStart));
  const RateGrant refused = limiter.try_acquire(kLimiterStart);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.retry_at, kLimiterStart + milliseconds(250));
  EXPECT_EQ(limiter.next_allowed(kLimiterStart + milliseconds(100)),
            kLimiterStart + milliseconds(250));
  EXPECT_FALSE(limiter.try_acquire(kLimiterStart + milliseconds(249)));
  EXPECT_TRUE(limiter.try_acquire(kLimiterStart + milliseconds(250)));
}

TEST(RateLimiter, FractionalTokensCarryOver) {
  // 3/s: a token every 333.33 ms; the remainder must not be lost at each grant.
  RateLimiter limiter({.per_second = 3, .burst = 1}, kLimiterStart);
  ASSERT_TRUE(limiter.try_acquire(kLimiterStart));
  EXPECT_EQ(limiter.next_allowed(kLimiterStart),
            kLimiterStart + milliseconds(334));                         // ceil(1000 / 3)
  ASSERT_TRUE(limiter.try_acquire(kLimiterStart + milliseconds(334)));  // 2 units left over
  EXPECT_EQ(limiter.next_allowed(kLimiterStart + milliseconds(334)),
            kLimiterStart + milliseconds(667));
  ASSERT_TRUE(limiter.try_acquire(kLimiterStart + milliseconds(667)));  // 1 unit left over
  EXPECT_EQ(limiter.next_allowed(kLimiterStart + milliseconds(667)),
            kLimiterStart + milliseconds(1000));
}

TEST(RateLimiter, LongIdleDoesNotAccumulateBeyondTheBurst) {
  RateLimiter limiter({.per_second = 10}, kLimiterStart);
  ASSERT_EQ(greedy_per_ms(limiter, kLimiterStart, kLimiterStart + milliseconds(1)), 10);
  const TimePoint later = kLimiterStart + hours(24 * 365);
  EXPECT_EQ(limiter.tokens_available(later), 10u);
  int granted = 0;
  while (limiter.try_acquire(later)) ++granted;
  EXPECT_EQ(granted, 10);
}

TEST(RateLimiter, ZeroRateIsUnlimited) {
  RateLimiter limiter({}, kLimiterStart);
  EXPECT_TRUE(limiter.unlimited());
  for (int i = 0; i < 100'000; ++i) ASSERT_TRUE(limiter.try_acquire(kLimiterStart));
  EXPECT_EQ(limiter.next_allowed(kLimiterStart), kLimiterStart);
}

TEST(RateLimiter, ExplicitBurstOfOneSpacesDeliveriesEvenly) {
  RateLimiter limiter({.per_second = 50, .burst = 1}, kLimiterStart);
  EXPECT_TRUE(limiter.try_acquire(kLimiterStart));
  const RateGrant refused = limiter.try_acquire(kLimiterStart);
  EXPECT_FALSE(refused);
  EXPECT_EQ(refused.retry_at, kLimiterStart + milliseconds(20));
}

TEST(RateLimiter, RateChangeAtRuntime) {
  RateLimiter limiter({.per_second = 10, .burst = 1}, kLimiterStart);
  const TimePoint switch_at = kLimiterStart + seconds(5);
  const int slow = greedy_per_ms(limiter, kLimiterStart, switch_at);
  EXPECT_NEAR(slow, 10 * 5 + 1, 1);
  limiter.reconfigure({.per_second = 100, .burst = 1}, switch_at);
  const int fast = greedy_per_ms(limiter, switch_at, switch_at + seconds(5));
  EXPECT_NEAR(fast, 100 * 5, 2);
}

TEST(RateLimiter, LoweringTheRateCapsTheSavedTokensAtTheNewBurst) {
  RateLimiter limiter({.per_second = 100}, kLimiterStart);
  EXPECT_EQ(limiter.tokens_available(kLimiterStart), 100u);
  limiter.reconfigure({.per_second = 5}, kLimiterStart + seconds(1));
  EXPECT_EQ(limiter.tokens_available(kLimiterStart + seconds(1)), 5u);
}

TEST(RateLimiter, LimitingAnUnlimitedEndpointStartsWithAFullBucket) {
  RateLimiter limiter({}, kLimiterStart);
  limiter.reconfigure({.per_second = 2}, kLimiterStart);
  EXPECT_EQ(limiter.tokens_available(kLimiterStart), 2u);
  EXPECT_TRUE(limiter.try_acquire(kLimiterStart));
  EXPECT_TRUE(limiter.try_acquire(kLimiterStart));
  EXPECT_FALSE(limiter.try_acquire(kLimiterStart));
  limiter.reconfigure({}, kLimiterStart);
  EXPECT_TRUE(limiter.try_acquire(kLimiterStart));
}

TEST(RateLimiter, ClockSteppingBackGrantsNothingExtra) {
  RateLimiter limiter({.per_second = 1, .burst = 1}, kLimiterStart);
  ASSERT_TRUE(limiter.try_acquire(kLimiterStart + seconds(10)));
  EXPECT_FALSE(limiter.try_acquire(kLimiterStart));  // earlier than the last refill
  EXPECT_EQ(limiter.next_allowed(kLimiterStart), kLimiterStart + seconds(11));
  EXPECT_FALSE(limiter.try_acquire(kLimiterStart + seconds(10) + milliseconds(999)));
  EXPECT_TRUE(limiter.try_acquire(kLimiterStart + seconds(11)));
}

TEST(RateLimiter, ExtremeRatesAndIdleTimesDoNotOverflow) {
  constexpr auto kMax = std::numeric_limits<std::uint32_t>::max();
  RateLimiter limiter({.per_second = kMax, .burst = kMax}, kLimiterStart);
  EXPECT_EQ(limiter.tokens_available(kLimiterStart), kMax);
  EXPECT_TRUE(limiter.try_acquire(kLimiterStart));
  const TimePoint far = kLimiterStart + hours(24 * 365 * 100);
  // Above 1000/s the bucket also holds one millisecond of refill (rate / 1000 tokens).
  EXPECT_GE(limiter.tokens_available(far), kMax);
  EXPECT_LE(limiter.tokens_available(far), std::uint64_t{kMax} + kMax / 1000);
  RateLimiter slow({.per_second = 1, .burst = kMax}, kLimiterStart);
  EXPECT_EQ(slow.tokens_available(far), kMax);
}

}  // namespace
}  // namespace hookd
