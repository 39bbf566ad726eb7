// A07 at unit level: the circuit breaker stops sending to a failing endpoint, probes it with
// exactly one request after a growing, jittered cool-down, and closes on success.
#include "core/circuit_breaker.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace hookd {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

const TimePoint kStart = TimePoint(seconds(1'700'000'000));
constexpr double kNoJitter = 0.5;  // sample 0.5 -> factor 1.0

CircuitBreakerConfig test_config() {
  CircuitBreakerConfig config;
  config.failure_threshold = 3;
  config.base_cooldown = seconds(10);
  config.max_cooldown = seconds(80);
  config.jitter_ratio = 0.2;
  config.probe_timeout = seconds(60);
  return config;
}

CircuitBreaker make(CircuitBreakerConfig config = test_config()) {
  auto breaker = CircuitBreaker::create(config);
  EXPECT_TRUE(breaker.has_value());
  return *breaker;
}

// One request: allow, then report. Returns the transition it caused, if any.
std::optional<CircuitTransition> fail_one(CircuitBreaker& breaker, TimePoint now) {
  const CircuitPermit permit = breaker.allow(now);
  EXPECT_TRUE(permit);
  return breaker.record_failure(permit, now, kNoJitter);
}

std::optional<CircuitTransition> succeed_one(CircuitBreaker& breaker, TimePoint now) {
  const CircuitPermit permit = breaker.allow(now);
  EXPECT_TRUE(permit);
  return breaker.record_success(permit, now);
}

// Sequence table: 'S' success, 'F' failure, each at the same instant in the closed state.
struct SequenceCase {
  std::string outcomes;
  CircuitState expected;
  int expected_consecutive;
};

TEST(CircuitBreaker, A07SequenceTable) {
  const std::vector<SequenceCase> cases = {
      {"", CircuitState::kClosed, 0},          {"F", CircuitState::kClosed, 1},
      {"FF", CircuitState::kClosed, 2},        {"FFF", CircuitState::kOpen, 3},
      {"FFSFF", CircuitState::kClosed, 2},     {"FSFSFSFS", CircuitState::kClosed, 0},
      {"SSSFFF", CircuitState::kOpen, 3},      {"FFSFFF", CircuitState::kOpen, 3},
      {"SFFSFFSFF", CircuitState::kClosed, 2},
  };
  for (const auto& c : cases) {
    CircuitBreaker breaker = make();
    for (const char outcome : c.outcomes) {
      if (outcome == 'F') {
        fail_one(breaker, kStart);
      } else {
        succeed_one(breaker, kStart);
      }
    }
    EXPECT_EQ(breaker.state(kStart), c.expected) << c.outcomes;
    EXPECT_EQ(breaker.consecutive_failures(), c.expected_consecutive) << c.outcomes;
  }
}

TEST(CircuitBreaker, A07OpensAfterThresholdAndRefusesUntilTheCooldownEnds) {
  CircuitBreaker breaker = make();
  EXPECT_FALSE(fail_one(breaker, kStart));
  EXPECT_FALSE(fail_one(breaker, kStart));
  const auto opened = fail_one(breaker, kStart);
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->from, CircuitState::kClosed);
  EXPECT_EQ(opened->to, CircuitState::kOpen);
  EXPECT_EQ(opened->at, kStart);
  EXPECT_EQ(opened->consecutive_failures, 3);
  EXPECT_EQ(opened->opens_in_a_row, 1);
  EXPECT_EQ(opened->next_probe_at, kStart + seconds(10));

  EXPECT_EQ(breaker.next_probe_at(kStart), kStart + seconds(10));
  EXPECT_FALSE(breaker.would_allow(kStart + seconds(9)));
  EXPECT_FALSE(breaker.allow(kStart + seconds(9) + milliseconds(999)));
  EXPECT_EQ(breaker.state(kStart + seconds(10)), CircuitState::kHalfOpen);
}

TEST(CircuitBreaker, A07HalfOpenAllowsExactlyOneProbe) {
  CircuitBreaker breaker = make();
  for (int i = 0; i < 3; ++i) fail_one(breaker, kStart);
  const TimePoint probe_time = kStart + seconds(10);
  const CircuitPermit probe = breaker.allow(probe_time);
  ASSERT_TRUE(probe);
  EXPECT_TRUE(probe.probe);
  ASSERT_TRUE(probe.transition);
  EXPECT_EQ(probe.transition->from, CircuitState::kOpen);
  EXPECT_EQ(probe.transition->to, CircuitState::kHalfOpen);
  // Every other caller is refused while the probe is out.
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(breaker.allow(probe_time + milliseconds(i)));
  EXPECT_EQ(breaker.next_probe_at(probe_time), probe_time + seconds(60));

  const auto closed = breaker.record_success(probe, probe_time + seconds(1));
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->from, CircuitState::kHalfOpen);
  EXPECT_EQ(closed->to, CircuitState::kClosed);
  EXPECT_EQ(breaker.state(probe_time + seconds(1)), CircuitState::kClosed);
  EXPECT_EQ(breaker.consecutive_failures(), 0);
  EXPECT_EQ(breaker.opens_in_a_row(), 0);
  // Closed again: many requests may go.
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(breaker.allow(probe_time + seconds(1)));
}

TEST(CircuitBreaker, ProbeFailureReopensWithGrowingCooldownUpToTheCap) {
  CircuitBreaker breaker = make();
  for (int i = 0; i < 3; ++i) fail_one(breaker, kStart);
  TimePoint now = kStart;
  std::vector<Duration> cooldowns;
  for (int round = 0; round < 6; ++round) {
    const TimePoint probe_at = *breaker.next_probe_at(now);
    cooldowns.push_back(probe_at - now);
    now = probe_at;
    const CircuitPermit probe = breaker.allow(now);
    ASSERT_TRUE(probe && probe.probe);
    const auto reopened = breaker.record_failure(probe, now, kNoJitter);
    ASSERT_TRUE(reopened);
    EXPECT_EQ(reopened->from, CircuitState::kHalfOpen);
    EXPECT_EQ(reopened->to, CircuitState::kOpen);
    EXPECT_EQ(reopened->opens_in_a_row, round + 2);
  }
  const std::vector<Duration> expected = {seconds(10), seconds(20), seconds(40),
                                          seconds(80), seconds(80), seconds(80)};
  EXPECT_EQ(cooldowns, expected);
}

TEST(CircuitBreaker, CooldownGrowthSaturatesWithoutOverflow) {
  CircuitBreakerConfig config = test_config();
  config.max_cooldown = std::chrono::hours(24 * 365);
  config.jitter_ratio = 0.0;
  const CircuitBreaker breaker = make(config);
  EXPECT_EQ(breaker.cooldown(1, 0.0), seconds(10));
  EXPECT_EQ(breaker.cooldown(4, 0.0), seconds(80));
  EXPECT_EQ(breaker.cooldown(1000, 0.0), config.max_cooldown);
}

TEST(CircuitBreaker, JitterBoundsOfTheCooldown) {
  const CircuitBreaker breaker = make();  // base 10 s, ratio 0.2 -> [8 s, 12 s)
  EXPECT_EQ(breaker.cooldown(1, 0.0), seconds(8));
  EXPECT_EQ(breaker.cooldown(1, 0.5), seconds(10));
  EXPECT_LE(breaker.cooldown(1, 0.999999), seconds(12));
  EXPECT_GE(breaker.cooldown(1, 0.999999), milliseconds(11'999));
}

TEST(CircuitBreaker, A07JitterSpreadsTheProbesOfManyBreakersThatFailedTogether) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<TimePoint> probe_times;
  for (int i = 0; i < 1000; ++i) {
    CircuitBreaker breaker = make();
    for (int f = 0; f < 3; ++f) {
      const CircuitPermit permit = breaker.allow(kStart);
      breaker.record_failure(permit, kStart, uniform(rng));
    }
    probe_times.push_back(*breaker.next_probe_at(kStart));
  }
  const auto [min, max] = std::minmax_element(probe_times.begin(), probe_times.end());
  EXPECT_GE(*min, kStart + seconds(8));
  EXPECT_LE(*max, kStart + seconds(12));
  EXPECT_GE(*max - *min, seconds(3));  // the window is 4 s wide
  // No thundering herd: no 100 ms slot holds more than 10 % of the probes (uniform ~2.5 %).
  std::map<std::int64_t, int> per_slot;
  for (const TimePoint t : probe_times) ++per_slot[(t - kStart).count() / 100];
  for (const auto& [slot, count] : per_slot) EXPECT_LE(count, 100) << slot;
  EXPECT_GE(std::set<TimePoint>(probe_times.begin(), probe_times.end()).size(), 500u);
}

TEST(CircuitBreaker, SuccessInClosedResetsTheConsecutiveCount) {
  CircuitBreaker breaker = make();
  fail_one(breaker, kStart);
  fail_one(breaker, kStart);
  EXPECT_EQ(breaker.consecutive_failures(), 2);
  EXPECT_FALSE(succeed_one(breaker, kStart));
  EXPECT_EQ(breaker.consecutive_failures(), 0);
  fail_one(breaker, kStart);
  fail_one(breaker, kStart);
  EXPECT_EQ(breaker.state(kStart), CircuitState::kClosed);
}

TEST(CircuitBreaker, ResultsOfRequestsInFlightWhenTheCircuitOpenedAreIgnored) {
  CircuitBreaker breaker = make();
  std::vector<CircuitPermit> in_flight;
  for (int i = 0; i < 6; ++i) in_flight.push_back(breaker.allow(kStart));
  for (int i = 0; i < 3; ++i) breaker.record_failure(in_flight[i], kStart, kNoJitter);
  ASSERT_EQ(breaker.state(kStart), CircuitState::kOpen);
  // Late failures do not extend the cool-down; a late success does not close the circuit.
  EXPECT_FALSE(breaker.record_failure(in_flight[3], kStart + seconds(1), kNoJitter));
  EXPECT_FALSE(breaker.record_success(in_flight[4], kStart + seconds(2)));
  EXPECT_EQ(breaker.next_probe_at(kStart), kStart + seconds(10));
  // Nor can they stand in for the probe once half-open.
  const CircuitPermit probe = breaker.allow(kStart + seconds(10));
  ASSERT_TRUE(probe.probe);
  EXPECT_FALSE(breaker.record_success(in_flight[5], kStart + seconds(11)));
  EXPECT_EQ(breaker.state(kStart + seconds(11)), CircuitState::kHalfOpen);
  EXPECT_FALSE(breaker.allow(kStart + seconds(11)));
}

TEST(CircuitBreaker, ReleasedProbeFreesTheSlot) {
  CircuitBreaker breaker = make();
  for (int i = 0; i < 3; ++i) fail_one(breaker, kStart);
  const TimePoint t = kStart + seconds(10);
  const CircuitPermit probe = breaker.allow(t);
  ASSERT_TRUE(probe.probe);
  EXPECT_FALSE(breaker.allow(t));
  breaker.release(probe);
  const CircuitPermit second = breaker.allow(t);
  EXPECT_TRUE(second.probe);
  EXPECT_FALSE(breaker.allow(t));
}

TEST(CircuitBreaker, SilentProbeIsReplacedAfterTheProbeTimeoutAndItsLateResultIgnored) {
  CircuitBreaker breaker = make();
  for (int i = 0; i < 3; ++i) fail_one(breaker, kStart);
  const TimePoint t = kStart + seconds(10);
  const CircuitPermit lost = breaker.allow(t);
  ASSERT_TRUE(lost.probe);
  EXPECT_FALSE(breaker.would_allow(t + seconds(59)));
  const CircuitPermit replacement = breaker.allow(t + seconds(60));
  ASSERT_TRUE(replacement.probe);
  EXPECT_FALSE(breaker.record_failure(lost, t + seconds(61), kNoJitter));
  EXPECT_EQ(breaker.state(t + seconds(61)), CircuitState::kHalfOpen);
  EXPECT_TRUE(breaker.record_success(replacement, t + seconds(61)));
}

TEST(CircuitBreaker, ThresholdOfOneOpensOnTheFirstFailure) {
  CircuitBreakerConfig config = test_config();
  config.failure_threshold = 1;
  CircuitBreaker breaker = make(config);
  EXPECT_TRUE(fail_one(breaker, kStart));
  EXPECT_EQ(breaker.state(kStart), CircuitState::kOpen);
}

TEST(CircuitBreaker, InvalidConfigsAreRefused) {
  const auto refused = [](auto mutate) {
    CircuitBreakerConfig config;
    mutate(config);
    return !CircuitBreaker::create(config).has_value();
  };
  EXPECT_FALSE(refused([](CircuitBreakerConfig&) {}));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.failure_threshold = 0; }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.base_cooldown = Duration::zero(); }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.max_cooldown = seconds(1); }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.jitter_ratio = 1.0; }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.jitter_ratio = -0.1; }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.probe_timeout = Duration::zero(); }));
}

TEST(CircuitBreaker, StateNames) {
  EXPECT_EQ(to_string(CircuitState::kClosed), "closed");
  EXPECT_EQ(to_string(CircuitState::kOpen), "open");
  EXPECT_EQ(to_string(CircuitState::kHalfOpen), "half_open");
}

}  // namespace
}  // namespace hookd
