// A39 and A07 at unit level: the circuit breaker opens on a sustained failure rate over a
// window with a minimum number of attempts (not on a burst, not on an endpoint failing two of
// every three requests), keeps a trickle of one request per probe interval while open (the
// cool-down, or the failing answer's Retry-After), and ramps the concurrency up after
// recovery (1, 2, 4, ... per ramp interval) instead of releasing everything at once.
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

const TimePoint kBreakerStart = TimePoint(seconds(1'700'000'000));
constexpr double kBreakerNoJitter = 0.5;  // sample 0.5 -> factor 1.0

// The defaults, except a ramp to 8.
CircuitBreakerConfig breaker_config() {
  CircuitBreakerConfig config;
  config.ramp_to = 8;
  return config;
}

CircuitBreaker make_breaker(CircuitBreakerConfig config = breaker_config()) {
  auto breaker = CircuitBreaker::create(config);
  EXPECT_TRUE(breaker.has_value());
  return *breaker;
}

std::optional<CircuitTransition> fail_one(CircuitBreaker& breaker, TimePoint now,
                                          std::optional<Duration> retry_after = {}) {
  const CircuitPermit permit = breaker.allow(now);
  EXPECT_TRUE(permit);
  return breaker.record_failure(permit, now, kBreakerNoJitter, retry_after);
}

std::optional<CircuitTransition> succeed_one(CircuitBreaker& breaker, TimePoint now) {
  const CircuitPermit permit = breaker.allow(now);
  EXPECT_TRUE(permit);
  return breaker.record_success(permit, now);
}

// A dead endpoint: one failure every `step` until the circuit opens; the time it opened.
std::optional<TimePoint> fail_until_open(CircuitBreaker& breaker, TimePoint from, Duration step,
                                         int max_requests = 10'000) {
  TimePoint now = from;
  for (int i = 0; i < max_requests; ++i, now += step) {
    if (auto t = fail_one(breaker, now); t && t->to == CircuitState::kOpen) return now;
  }
  return std::nullopt;
}

// Opens the default breaker: a failure every 500 ms for 15 s (30 attempts, all failed).
TimePoint open_it(CircuitBreaker& breaker) {
  const auto opened = fail_until_open(breaker, kBreakerStart, milliseconds(500));
  EXPECT_TRUE(opened);
  EXPECT_EQ(breaker.state(*opened), CircuitState::kOpen);
  return opened.value_or(kBreakerStart);
}

// A39: the first case at unit level — 20 first attempts fail at once, their retries
// fail, their third attempts succeed. The old breaker opened on the 5th failure.
TEST(CircuitBreaker, A39_BurstOfFailuresThenSuccessesDoesNotOpen) {
  CircuitBreaker breaker = make_breaker();
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 20; ++i) {
      EXPECT_FALSE(fail_one(breaker, kBreakerStart + milliseconds(300 * round + i)));
    }
  }
  for (int i = 0; i < 20; ++i)
    EXPECT_FALSE(succeed_one(breaker, kBreakerStart + milliseconds(900 + i)));
  EXPECT_EQ(breaker.state(kBreakerStart + seconds(1)), CircuitState::kClosed);
  EXPECT_FALSE(breaker.concurrency_cap(kBreakerStart + seconds(1)));
}

// A39: failing two of every three requests, steadily for ten minutes, never opens.
TEST(CircuitBreaker, A39_EndpointFailingTwoOfEveryThreeStaysClosed) {
  CircuitBreaker breaker = make_breaker();
  TimePoint now = kBreakerStart;
  for (int i = 0; i < 6000; ++i, now += milliseconds(100)) {
    const auto t = i % 3 == 2 ? succeed_one(breaker, now) : fail_one(breaker, now);
    ASSERT_FALSE(t) << "opened at request " << i;
  }
  EXPECT_EQ(breaker.state(now), CircuitState::kClosed);
}

// A39: the FIFO case of the issue — 30 % random failures (with runs of five and more in a
// row) never open it.
TEST(CircuitBreaker, A39_RandomThirtyPercentFailuresNeverOpen) {
  std::mt19937_64 rng(7);
  std::bernoulli_distribution fails(0.3);
  CircuitBreaker breaker = make_breaker();
  TimePoint now = kBreakerStart;
  int longest_run = 0;
  for (int i = 0, run = 0; i < 20'000; ++i, now += milliseconds(20)) {
    const bool failed = fails(rng);
    run = failed ? run + 1 : 0;
    longest_run = std::max(longest_run, run);
    ASSERT_FALSE(failed ? fail_one(breaker, now) : succeed_one(breaker, now)) << i;
  }
  EXPECT_GE(longest_run, 5);
}

TEST(CircuitBreaker, A39_SustainedFailureRateOpensAfterHalfTheWindow) {
  CircuitBreaker breaker = make_breaker();
  // All-failing from kBreakerStart: the rate is reached at once, but only a span of half the window
  // (15 s) makes it sustained.
  const auto opened = fail_until_open(breaker, kBreakerStart, milliseconds(500));
  ASSERT_TRUE(opened);
  EXPECT_EQ(*opened, kBreakerStart + seconds(15));
}

TEST(CircuitBreaker, A39_FewerThanTheMinimumAttemptsNeverOpen) {
  CircuitBreaker breaker = make_breaker();
  // 19 failures per 30 s window, every one failing, for ten minutes.
  TimePoint now = kBreakerStart;
  for (int i = 0; i < 400; ++i, now += milliseconds(1600)) ASSERT_FALSE(fail_one(breaker, now));
  EXPECT_EQ(breaker.state(now), CircuitState::kClosed);
}

TEST(CircuitBreaker, A39_RateBelowTheThresholdStaysClosedAboveItOpens) {
  auto run = [](int failures_per_20) {
    CircuitBreaker breaker = make_breaker();
    TimePoint now = kBreakerStart;
    for (int i = 0; i < 2000; ++i, now += milliseconds(100)) {
      const auto t = i % 20 < failures_per_20 ? fail_one(breaker, now) : succeed_one(breaker, now);
      if (t && t->to == CircuitState::kOpen) return true;
    }
    return false;
  };
  EXPECT_FALSE(run(17));  // 85 %
  EXPECT_TRUE(run(19));   // 95 %
  EXPECT_TRUE(run(20));
}

TEST(CircuitBreaker, A39_OldSuccessesAgeOutOfTheWindow) {
  CircuitBreaker breaker = make_breaker();
  TimePoint now = kBreakerStart;
  for (int i = 0; i < 600; ++i, now += milliseconds(100)) succeed_one(breaker, now);
  // The endpoint dies: it opens once the successes have left the 30 s window (>= 90 % failed),
  // not before.
  const auto opened = fail_until_open(breaker, now, milliseconds(100));
  ASSERT_TRUE(opened);
  EXPECT_GE(*opened - now, seconds(24));
  EXPECT_LE(*opened - now, seconds(30));
}

TEST(CircuitBreaker, OpeningReportsTheWindowAndTheFirstTrickleTime) {
  CircuitBreaker breaker = make_breaker();
  std::optional<CircuitTransition> opened;
  TimePoint now = kBreakerStart;
  for (; !opened; now += milliseconds(500)) opened = fail_one(breaker, now);
  EXPECT_EQ(opened->from, CircuitState::kClosed);
  EXPECT_EQ(opened->to, CircuitState::kOpen);
  EXPECT_EQ(opened->window.attempts, 31);
  EXPECT_EQ(opened->window.failures, 31);
  EXPECT_EQ(opened->next_probe_at, opened->at + seconds(30));
}

// A39: a dead endpoint gets one request per cool-down while open, at concurrency 1, and
// the interval does not grow (the old breaker doubled it per failed probe).
TEST(CircuitBreaker, A39_OpenCircuitKeepsATrickleOfOneRequestPerCooldown) {
  CircuitBreaker breaker = make_breaker();
  const TimePoint opened = open_it(breaker);
  EXPECT_EQ(breaker.concurrency_cap(opened), 1u);
  // Ask every 100 ms for ten minutes; the endpoint stays dead.
  std::vector<TimePoint> sent;
  for (TimePoint now = opened; now < opened + minutes(10); now += milliseconds(100)) {
    const CircuitPermit permit = breaker.allow(now);
    if (!permit) continue;
    EXPECT_TRUE(permit.trickle);
    EXPECT_FALSE(breaker.allow(now)) << "a second request while the first is out";
    sent.push_back(now);
    EXPECT_FALSE(breaker.record_failure(permit, now + milliseconds(50), kBreakerNoJitter));
  }
  ASSERT_EQ(sent.size(), 19u);  // one per 30 s + 50 ms answer, no growth
  EXPECT_EQ(sent.front() - opened, seconds(30));
  for (std::size_t i = 1; i < sent.size(); ++i) {
    EXPECT_EQ(sent[i] - sent[i - 1], milliseconds(30'100)) << i;
  }
  EXPECT_EQ(breaker.state(sent.back()), CircuitState::kOpen);
}

// A39: the Retry-After of the failing answer sets when the next request goes (clamped to
// [min_probe_interval, cooldown]).
TEST(CircuitBreaker, A39_RetryAfterOfTheFailingAnswerSetsTheProbeTime) {
  CircuitBreaker breaker = make_breaker();
  TimePoint now = kBreakerStart;
  std::optional<CircuitTransition> opened;
  for (; !opened; now += milliseconds(500)) opened = fail_one(breaker, now, seconds(2));
  EXPECT_EQ(opened->next_probe_at, opened->at + seconds(2));
  const TimePoint t = opened->at;
  EXPECT_FALSE(breaker.would_allow(t + milliseconds(1999)));
  CircuitPermit permit = breaker.allow(t + seconds(2));
  ASSERT_TRUE(permit.trickle);
  breaker.record_failure(permit, t + seconds(2), kBreakerNoJitter, seconds(5));
  EXPECT_EQ(breaker.next_probe_at(t + seconds(2)), t + seconds(7));
  permit = breaker.allow(t + seconds(7));
  breaker.record_failure(permit, t + seconds(7), kBreakerNoJitter, milliseconds(0));
  EXPECT_EQ(breaker.next_probe_at(t + seconds(7)), t + seconds(8));  // floor 1 s
  permit = breaker.allow(t + seconds(8));
  breaker.record_failure(permit, t + seconds(8), kBreakerNoJitter, std::chrono::hours(2));
  EXPECT_EQ(breaker.next_probe_at(t + seconds(8)), t + seconds(38));  // at most the cool-down
  permit = breaker.allow(t + seconds(38));
  breaker.record_failure(permit, t + seconds(38),
                         kBreakerNoJitter);  // no Retry-After: the cool-down
  EXPECT_EQ(breaker.next_probe_at(t + seconds(38)), t + seconds(68));
}

// A39: the trickle request's success starts the ramp: 1, 2, 4, 8 per ramp interval (1 s),
// then closed at the endpoint's cap (8 here) — never everything at once.
TEST(CircuitBreaker, A39_RecoveryRampsTheConcurrencyUpThenCloses) {
  CircuitBreaker breaker = make_breaker();
  const TimePoint opened = open_it(breaker);
  const TimePoint t = opened + seconds(30);
  const CircuitPermit permit = breaker.allow(t);
  ASSERT_TRUE(permit.trickle);
  const auto half_open = breaker.record_success(permit, t);
  ASSERT_TRUE(half_open);
  EXPECT_EQ(half_open->from, CircuitState::kOpen);
  EXPECT_EQ(half_open->to, CircuitState::kHalfOpen);
  std::vector<std::uint32_t> caps;
  for (int ms = 0; ms < 3000; ms += 500)
    caps.push_back(*breaker.concurrency_cap(t + milliseconds(ms)));
  EXPECT_EQ(caps, (std::vector<std::uint32_t>{1, 1, 2, 2, 4, 4}));
  EXPECT_EQ(breaker.next_ramp_step(t + milliseconds(2500)), t + seconds(3));
  EXPECT_EQ(breaker.state(t + milliseconds(2999)), CircuitState::kHalfOpen);
  EXPECT_EQ(breaker.state(t + seconds(3)), CircuitState::kClosed);
  const auto closed = breaker.tick(t + seconds(3));
  ASSERT_TRUE(closed);
  EXPECT_EQ(closed->from, CircuitState::kHalfOpen);
  EXPECT_EQ(closed->to, CircuitState::kClosed);
  EXPECT_FALSE(breaker.tick(t + seconds(4)));
  EXPECT_FALSE(breaker.concurrency_cap(t + seconds(3)));
}

TEST(CircuitBreaker, A39_FailuresDuringTheRampReopenTheCircuit) {
  CircuitBreaker breaker = make_breaker();
  const TimePoint t = open_it(breaker) + seconds(30);
  breaker.record_success(breaker.allow(t), t);
  ASSERT_EQ(breaker.state(t), CircuitState::kHalfOpen);
  // Dead again: the ramp's failure rate reopens it after min_attempts, no span needed.
  std::optional<CircuitTransition> reopened;
  int failures = 0;
  for (TimePoint now = t; !reopened && failures < 100; now += milliseconds(10), ++failures) {
    reopened = fail_one(breaker, now);
  }
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->from, CircuitState::kHalfOpen);
  EXPECT_EQ(reopened->to, CircuitState::kOpen);
  EXPECT_EQ(failures, 19);  // with the trickle's success: 19 of 20 = 95 %
}

TEST(CircuitBreaker, ARampRequestStillCountsAfterTheRampClosed) {
  CircuitBreaker breaker = make_breaker();
  const TimePoint t = open_it(breaker) + seconds(30);
  breaker.record_success(breaker.allow(t), t);
  const CircuitPermit during_ramp = breaker.allow(t + milliseconds(100));
  ASSERT_TRUE(breaker.tick(t + seconds(3)));  // closed
  breaker.record_failure(during_ramp, t + seconds(3), kBreakerNoJitter);
  EXPECT_EQ(breaker.window_totals(t + seconds(3)).failures, 1);
}

TEST(CircuitBreaker, A07JitterSpreadsTheTrickleOfManyBreakersThatOpenedTogether) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::vector<TimePoint> probe_times;
  for (int i = 0; i < 1000; ++i) {
    CircuitBreaker breaker = make_breaker();
    for (TimePoint now = kBreakerStart;; now += milliseconds(500)) {
      const CircuitPermit permit = breaker.allow(now);
      if (breaker.record_failure(permit, now, uniform(rng))) break;
    }
    probe_times.push_back(*breaker.next_probe_at(kBreakerStart + seconds(15)));
  }
  const auto [min, max] = std::minmax_element(probe_times.begin(), probe_times.end());
  EXPECT_GE(*min, kBreakerStart + seconds(15 + 24));
  EXPECT_LE(*max, kBreakerStart + seconds(15 + 36));
  EXPECT_GE(*max - *min, seconds(10));  // the spread is 12 s wide
  std::map<std::int64_t, int> per_slot;
  for (const TimePoint t : probe_times) ++per_slot[(t - kBreakerStart).count() / 1000];
  for (const auto& [slot, count] : per_slot) EXPECT_LE(count, 200) << slot;
}

TEST(CircuitBreaker, ResultsOfRequestsInFlightWhenTheCircuitOpenedAreIgnored) {
  CircuitBreaker breaker = make_breaker();
  std::vector<CircuitPermit> in_flight;
  for (int i = 0; i < 3; ++i) in_flight.push_back(breaker.allow(kBreakerStart));
  const TimePoint opened = open_it(breaker);
  // Late failures do not move the trickle; a late success does not start the ramp.
  EXPECT_FALSE(breaker.record_failure(in_flight[0], opened + seconds(1), kBreakerNoJitter));
  EXPECT_FALSE(breaker.record_success(in_flight[1], opened + seconds(2)));
  EXPECT_EQ(breaker.state(opened + seconds(2)), CircuitState::kOpen);
  EXPECT_EQ(breaker.next_probe_at(opened), opened + seconds(30));
  const CircuitPermit trickle = breaker.allow(opened + seconds(30));
  ASSERT_TRUE(trickle.trickle);
  EXPECT_FALSE(breaker.record_success(in_flight[2], opened + seconds(31)));
  EXPECT_EQ(breaker.state(opened + seconds(31)), CircuitState::kOpen);
  EXPECT_FALSE(breaker.allow(opened + seconds(31)));
}

TEST(CircuitBreaker, ReleasedTrickleRequestFreesTheSlot) {
  CircuitBreaker breaker = make_breaker();
  const TimePoint t = open_it(breaker) + seconds(30);
  const CircuitPermit first = breaker.allow(t);
  ASSERT_TRUE(first.trickle);
  EXPECT_FALSE(breaker.allow(t));
  EXPECT_TRUE(breaker.trickle_in_flight(t));
  breaker.release(first);
  EXPECT_TRUE(breaker.allow(t).trickle);
  EXPECT_FALSE(breaker.allow(t));
}

TEST(CircuitBreaker, SilentTrickleRequestIsReplacedAfterTheProbeTimeoutAndIgnored) {
  CircuitBreaker breaker = make_breaker();
  const TimePoint t = open_it(breaker) + seconds(30);
  const CircuitPermit lost = breaker.allow(t);
  ASSERT_TRUE(lost.trickle);
  EXPECT_EQ(breaker.next_probe_at(t), t + minutes(2));
  EXPECT_FALSE(breaker.would_allow(t + seconds(119)));
  const CircuitPermit replacement = breaker.allow(t + minutes(2));
  ASSERT_TRUE(replacement.trickle);
  EXPECT_FALSE(breaker.record_success(lost, t + minutes(2) + seconds(1)));
  EXPECT_EQ(breaker.state(t + minutes(2) + seconds(1)), CircuitState::kOpen);
  EXPECT_TRUE(breaker.record_success(replacement, t + minutes(2) + seconds(1)));
}

TEST(CircuitBreaker, DisabledBreakerNeverOpens) {
  CircuitBreakerConfig config = breaker_config();
  config.enabled = false;
  CircuitBreaker breaker = make_breaker(config);
  EXPECT_FALSE(fail_until_open(breaker, kBreakerStart, milliseconds(100), 5000));
}

TEST(CircuitBreaker, InvalidConfigsAreRefused) {
  const auto refused = [](auto mutate) {
    CircuitBreakerConfig config;
    mutate(config);
    return !CircuitBreaker::create(config).has_value();
  };
  EXPECT_FALSE(refused([](CircuitBreakerConfig&) {}));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.failure_rate = 0.0; }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.failure_rate = 1.01; }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.min_attempts = 0; }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.window = milliseconds(9); }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.cooldown = Duration::zero(); }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.min_probe_interval = minutes(1); }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.jitter_ratio = 1.0; }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.jitter_ratio = -0.1; }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.probe_timeout = Duration::zero(); }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.ramp_interval = Duration::zero(); }));
  EXPECT_TRUE(refused([](CircuitBreakerConfig& c) { c.ramp_to = 0; }));
}

TEST(CircuitBreaker, StateNames) {
  EXPECT_EQ(to_string(CircuitState::kClosed), "closed");
  EXPECT_EQ(to_string(CircuitState::kOpen), "open");
  EXPECT_EQ(to_string(CircuitState::kHalfOpen), "half_open");
}

}  // namespace
}  // namespace hookd
