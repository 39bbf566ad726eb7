#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "hookd/retry.hpp"

namespace hookd {
namespace {

using namespace std::chrono;
using Kind = RetryDecision::Kind;

const TimePoint kPolicyStart = time_point_cast<milliseconds>(sys_days{2026y / 11 / 29});

RetryPolicy make_policy(RetryPolicyConfig config = {}) {
  auto policy = RetryPolicy::create(std::move(config));
  EXPECT_TRUE(policy.has_value()) << (policy ? "" : policy.error().message);
  return std::move(policy).value();
}

RetryPolicyConfig exponential(Duration base, Duration max, int max_attempts = 50) {
  RetryPolicyConfig config;
  config.base_delay = base;
  config.max_delay = max;
  config.max_attempts = max_attempts;
  config.max_age = hours(24 * 365);
  return config;
}

TEST(RetryPolicyTest, ValidatesParameters) {
  auto bad = [](auto mutate) {
    RetryPolicyConfig config;
    mutate(config);
    const auto policy = RetryPolicy::create(config);
    return !policy.has_value() && policy.error().code == ErrorCode::kInvalidArgument;
  };
  EXPECT_TRUE(bad([](auto& c) { c.base_delay = Duration{0}; }));
  EXPECT_TRUE(bad([](auto& c) { c.base_delay = seconds(-1); }));
  EXPECT_TRUE(bad([](auto& c) { c.max_delay = c.base_delay - milliseconds(1); }));
  EXPECT_TRUE(bad([](auto& c) { c.max_attempts = 0; }));
  EXPECT_TRUE(bad([](auto& c) { c.max_age = Duration{0}; }));
  EXPECT_TRUE(bad([](auto& c) { c.min_retry_after = hours(2), c.max_retry_after = hours(1); }));
  EXPECT_TRUE(bad([](auto& c) { c.min_retry_after = seconds(-1); }));
  EXPECT_TRUE(bad([](auto& c) { c.backoff = BackoffKind::kSchedule; }));
  EXPECT_TRUE(bad([](auto& c) {
    c.backoff = BackoffKind::kSchedule, c.schedule = {seconds(1), seconds(-1)};
  }));
  EXPECT_FALSE(bad([](auto&) {}));
  EXPECT_FALSE(bad([](auto& c) { c.backoff = BackoffKind::kSchedule, c.schedule = {seconds(0)}; }));
}

TEST(RetryPolicyTest, OutcomesMapToDecisions) {  // A01, A03
  const RetryPolicy policy = make_policy();
  struct Case {
    AttemptOutcome outcome;
    Kind expected;
  };
  const Case cases[] = {
      {AttemptOutcome::response(200), Kind::kDelivered},
      {AttemptOutcome::response(204), Kind::kDelivered},
      {AttemptOutcome::response(503), Kind::kRetry},
      {AttemptOutcome::response(500), Kind::kRetry},
      {AttemptOutcome::response(429), Kind::kRetry},
      {AttemptOutcome::response(408), Kind::kRetry},
      {AttemptOutcome::response(301), Kind::kRetry},
      {AttemptOutcome::connection_error(), Kind::kRetry},
      {AttemptOutcome::timeout(), Kind::kRetry},
      {AttemptOutcome::response(400), Kind::kDeadLetter},
      {AttemptOutcome::response(404), Kind::kDeadLetter},
      {AttemptOutcome::response(422), Kind::kDeadLetter},
      {AttemptOutcome::response(401), Kind::kDeadLetterAlert},
      {AttemptOutcome::response(403), Kind::kDeadLetterAlert},
      {AttemptOutcome::response(410), Kind::kDisableEndpoint},
      {AttemptOutcome::address_refused(), Kind::kDeadLetter},
  };
  for (const auto& c : cases) {
    const auto decision = policy.next(c.outcome, 1, kPolicyStart, kPolicyStart, 0.5);
    EXPECT_EQ(decision.kind, c.expected) << decision.reason;
    EXPECT_FALSE(decision.reason.empty());
    EXPECT_EQ(decision.is_final(), c.expected != Kind::kRetry);
  }
  EXPECT_EQ(policy.next(AttemptOutcome::response(503), 1, kPolicyStart, kPolicyStart, 0.5).reason,
            "HTTP 503: retry 2 of 12 in 10s");
  EXPECT_EQ(policy.next(AttemptOutcome::response(401), 1, kPolicyStart, kPolicyStart, 0.5).reason,
            "HTTP 401: not retryable (credentials?), dead-lettered, alert raised");
}

TEST(RetryPolicyTest, OverridesApplyPerPolicy) {
  RetryPolicyConfig config;
  ASSERT_TRUE(config.overrides.add("404", "retry").has_value());
  ASSERT_TRUE(config.overrides.add("5xx", "dead_letter").has_value());
  const RetryPolicy policy = make_policy(config);
  EXPECT_EQ(policy.next(AttemptOutcome::response(404), 1, kPolicyStart, kPolicyStart, 0.5).kind,
            Kind::kRetry);
  EXPECT_EQ(policy.next(AttemptOutcome::response(502), 1, kPolicyStart, kPolicyStart, 0.5).kind,
            Kind::kDeadLetter);
  // Connection errors are not statuses; overrides do not touch them.
  EXPECT_EQ(policy.next(AttemptOutcome::timeout(), 1, kPolicyStart, kPolicyStart, 0.5).kind,
            Kind::kRetry);
}

// A02: exponential growth, never below base*0.5, never above max*1.5.
TEST(RetryPolicyTest, ExponentialBackoffStaysWithinBounds) {
  const Duration base = seconds(10), max = minutes(30);
  const RetryPolicy policy = make_policy(exponential(base, max));
  for (int n = 1; n <= 40; ++n) {
    const double nominal = std::min(10'000.0 * std::exp2(n - 1), 1'800'000.0);
    for (double sample : {0.0, 0.25, 0.5, 0.75, 0.999999}) {
      const Duration d = policy.backoff_delay(n, sample);
      EXPECT_GE(d, base / 2) << n << " " << sample;
      EXPECT_LE(d, max * 3 / 2) << n << " " << sample;
      EXPECT_NEAR(static_cast<double>(d.count()), nominal * (0.5 + sample), 1.0);
    }
  }
  EXPECT_EQ(policy.backoff_delay(1, 0.5), seconds(10));
  EXPECT_EQ(policy.backoff_delay(2, 0.5), seconds(20));
  EXPECT_EQ(policy.backoff_delay(3, 0.5), seconds(40));
  EXPECT_EQ(policy.backoff_delay(1, 0.0), seconds(5));
  EXPECT_EQ(policy.backoff_delay(1000, 0.5), max);  // no overflow for huge n
  const auto decision =
      policy.next(AttemptOutcome::response(503), 3, kPolicyStart, kPolicyStart, 0.5);
  EXPECT_EQ(decision.retry_at, kPolicyStart + seconds(40));
}

TEST(RetryPolicyTest, ScheduleIsExactAndCapsAttempts) {
  RetryPolicyConfig config;
  config.backoff = BackoffKind::kSchedule;
  config.schedule = svix_schedule();
  config.max_attempts = 100;
  config.max_age = hours(24 * 7);
  const RetryPolicy policy = make_policy(config);
  const std::vector<Duration> expected = {seconds(5), minutes(5), minutes(30), hours(2),
                                          hours(5),   hours(10),  hours(10)};
  TimePoint now = kPolicyStart;
  for (int attempt = 1; attempt <= 7; ++attempt) {
    const auto decision = policy.next(AttemptOutcome::timeout(), attempt, kPolicyStart, now, 0.9);
    ASSERT_EQ(decision.kind, Kind::kRetry) << attempt;
    EXPECT_EQ(decision.retry_at - now, expected[attempt - 1]) << attempt;
    now = decision.retry_at;
  }
  const auto last = policy.next(AttemptOutcome::timeout(), 8, kPolicyStart, now, 0.9);
  EXPECT_EQ(last.kind, Kind::kDeadLetter);
  EXPECT_EQ(last.reason, "timeout: max attempts (8) reached, dead-lettered");
}

TEST(RetryPolicyTest, MaxAttemptsDeadLetters) {  // A04
  const RetryPolicy policy = make_policy(exponential(seconds(1), seconds(10), 5));
  for (int attempt = 1; attempt < 5; ++attempt) {
    EXPECT_EQ(
        policy.next(AttemptOutcome::response(500), attempt, kPolicyStart, kPolicyStart, 0.5).kind,
        Kind::kRetry);
  }
  EXPECT_EQ(policy.next(AttemptOutcome::response(500), 5, kPolicyStart, kPolicyStart, 0.5).kind,
            Kind::kDeadLetter);
  EXPECT_EQ(policy.next(AttemptOutcome::response(500), 6, kPolicyStart, kPolicyStart, 0.5).kind,
            Kind::kDeadLetter);
  // A success on the last attempt is still a success.
  EXPECT_EQ(policy.next(AttemptOutcome::response(200), 5, kPolicyStart, kPolicyStart, 0.5).kind,
            Kind::kDelivered);
}

TEST(RetryPolicyTest, MaxAgeDeadLettersAndNoRetryPassesTheDeadline) {  // A04
  RetryPolicyConfig config = exponential(minutes(10), hours(1));
  config.max_age = hours(2);
  const RetryPolicy policy = make_policy(config);
  const auto outcome = AttemptOutcome::connection_error();
  EXPECT_EQ(policy.next(outcome, 3, kPolicyStart, kPolicyStart + hours(2), 0.5).kind,
            Kind::kDeadLetter);
  EXPECT_EQ(policy.next(outcome, 3, kPolicyStart, kPolicyStart + hours(3), 0.5).kind,
            Kind::kDeadLetter);
  // 1h55m in, the next delay (~1h) would pass the deadline: the last retry is at it.
  const auto last = policy.next(outcome, 7, kPolicyStart, kPolicyStart + minutes(115), 0.5);
  ASSERT_EQ(last.kind, Kind::kRetry);
  EXPECT_EQ(last.retry_at, kPolicyStart + hours(2));
  EXPECT_EQ(policy.next(outcome, 8, kPolicyStart, last.retry_at, 0.5).kind, Kind::kDeadLetter);
}

// A02: Retry-After is honoured (both forms) as a lower bound, clamped by the policy.
TEST(RetryPolicyTest, RetryAfterIsHonouredWithinBounds) {
  RetryPolicyConfig config = exponential(seconds(10), hours(1));
  config.min_retry_after = seconds(2);
  config.max_retry_after = minutes(10);
  const RetryPolicy policy = make_policy(config);
  auto delay_for = [&](std::string header) {
    const auto d =
        policy.next(AttemptOutcome::response(429, header), 1, kPolicyStart, kPolicyStart, 0.5);
    EXPECT_EQ(d.kind, Kind::kRetry);
    return d.retry_at - kPolicyStart;
  };
  EXPECT_EQ(delay_for(""), seconds(10));
  EXPECT_EQ(delay_for("120"), seconds(120));
  EXPECT_EQ(delay_for("Sun, 29 Nov 2026 00:03:00 GMT"), minutes(3));
  EXPECT_EQ(delay_for("Sunday, 29-Nov-26 00:04:00 GMT"), minutes(4));
  EXPECT_EQ(delay_for("Sun Nov 29 00:05:00 2026"), minutes(5));
  EXPECT_EQ(delay_for("86400"), minutes(10));    // clamped to max_retry_after
  EXPECT_EQ(delay_for("1"), seconds(10));        // shorter than backoff: backoff wins
  EXPECT_EQ(delay_for("garbage"), seconds(10));  // ignored
  EXPECT_EQ(delay_for("-30"), seconds(10));      // ignored
  EXPECT_EQ(delay_for("Sun, 06 Nov 1994 08:49:37 GMT"), seconds(10));  // past date
  const auto d =
      policy.next(AttemptOutcome::response(503, "120"), 1, kPolicyStart, kPolicyStart, 0.5);
  EXPECT_EQ(d.reason, "HTTP 503: retry 2 of 50 in 2m (Retry-After)");

  // min_retry_after lifts a tiny request above a tiny backoff.
  const RetryPolicy tiny = make_policy([] {
    RetryPolicyConfig c = exponential(milliseconds(100), seconds(1));
    c.min_retry_after = seconds(3);
    return c;
  }());
  EXPECT_EQ(
      tiny.next(AttemptOutcome::response(503, "0"), 1, kPolicyStart, kPolicyStart, 0.5).retry_at,
      kPolicyStart + seconds(3));

  config.honour_retry_after = false;
  const RetryPolicy deaf = make_policy(config);
  EXPECT_EQ(
      deaf.next(AttemptOutcome::response(429, "600"), 1, kPolicyStart, kPolicyStart, 0.5).retry_at,
      kPolicyStart + seconds(10));
}

// A02: after a mass outage, 1,000 messages failing at the same instant are not retried in
// lockstep. Jitter samples come from a seeded generator drawn here, as the worker would.
TEST(RetryPolicyTest, JitterSpreadsSimultaneousFailuresA02) {
  const RetryPolicy policy = make_policy(exponential(seconds(10), hours(1)));
  std::mt19937 rng(20261129);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  constexpr int kMessages = 1000;
  for (int attempt : {1, 4, 12}) {  // below the cap and at the cap
    std::vector<double> delays;
    for (int i = 0; i < kMessages; ++i) {
      const auto d = policy.next(AttemptOutcome::response(503), attempt, kPolicyStart, kPolicyStart,
                                 uniform(rng));
      ASSERT_EQ(d.kind, Kind::kRetry);
      delays.push_back(static_cast<double>((d.retry_at - kPolicyStart).count()));
    }
    const auto [lo, hi] = std::minmax_element(delays.begin(), delays.end());
    const double nominal = policy.backoff_delay(attempt, 0.5).count();
    // Spread over (almost) the whole [0.5, 1.5) x nominal window.
    EXPECT_LT(*lo, nominal * 0.6) << attempt;
    EXPECT_GT(*hi, nominal * 1.4) << attempt;
    // No tenth of the window holds more than 20% of the retries (uniform: ~10%).
    std::vector<int> buckets(10, 0);
    for (double d : delays) {
      const int b = std::clamp(static_cast<int>((d / nominal - 0.5) * 10), 0, 9);
      ++buckets[b];
    }
    EXPECT_LT(*std::max_element(buckets.begin(), buckets.end()), kMessages / 5) << attempt;
    // Standard deviation of a uniform width-1 spread is 1/sqrt(12) ~ 0.289 x nominal.
    double mean = 0, var = 0;
    for (double d : delays) mean += d / kMessages;
    for (double d : delays) var += (d - mean) * (d - mean) / kMessages;
    EXPECT_GT(std::sqrt(var), nominal * 0.2) << attempt;
    EXPECT_LT(std::sqrt(var), nominal * 0.4) << attempt;
  }
}

}  // namespace
}  // namespace hookd
