// A07/A08/A39 at unit level: the EndpointGate combines circuit breaker, concurrency cap and
// rate limit into one admit() answer; a slow or failing endpoint only blocks its own gate; an
// open circuit admits one request at a time, and after recovery the ramp caps the concurrency.
#include "core/endpoint_gate.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace hookd {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const TimePoint kGateStart = TimePoint(seconds(1'700'000'000));
constexpr double kGateNoJitter = 0.5;

EndpointGateConfig gate_config() {
  EndpointGateConfig config;
  config.rate = {.per_second = 10, .burst = 2};
  config.max_in_flight = 2;
  config.breaker.min_attempts = 2;
  config.breaker.window = milliseconds(400);  // sustained: failures 200 ms apart
  config.breaker.cooldown = seconds(10);
  config.breaker.ramp_interval = seconds(1);
  return config;
}

EndpointGate make_gate(const EndpointGateConfig& config = gate_config()) {
  auto gate = EndpointGate::create(config, kGateStart);
  EXPECT_TRUE(gate.has_value());
  return *gate;
}

// Two failures 200 ms apart (kGateStart, kGateStart + 200 ms): the circuit opens on the second.
void open_circuit(EndpointGate& gate) {
  for (int i = 0; i < 2; ++i) {
    const TimePoint now = kGateStart + milliseconds(200 * i);
    const Admission a = gate.admit(now);
    ASSERT_TRUE(a.admitted());
    const auto t = gate.finish(a.permit, EndpointHealth::kFailed, now, kGateNoJitter);
    ASSERT_EQ(t.has_value(), i == 1);
  }
}
constexpr TimePoint kOpened = kGateStart + milliseconds(200);

// ---- ConcurrencyLimit ---------------------------------------------------------------------

TEST(ConcurrencyLimit, CapsRequestsInFlight) {
  ConcurrencyLimit limit(2);
  EXPECT_TRUE(limit.try_start());
  EXPECT_TRUE(limit.try_start());
  EXPECT_FALSE(limit.try_start());
  EXPECT_EQ(limit.in_flight(), 2u);
  limit.finish();
  EXPECT_TRUE(limit.try_start());
}

TEST(ConcurrencyLimit, ZeroIsUnlimitedAndLoweringTheCapDrainsFirst) {
  ConcurrencyLimit limit(0);
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(limit.try_start());
  limit.set_cap(10);
  EXPECT_FALSE(limit.try_start());
  for (int i = 0; i < 991; ++i) limit.finish();
  EXPECT_EQ(limit.in_flight(), 9u);
  EXPECT_TRUE(limit.try_start());
  EXPECT_FALSE(limit.try_start());
}

// ---- EndpointGate -------------------------------------------------------------------------

TEST(EndpointGate, AdmitsWhenEverythingIsFree) {
  EndpointGate gate = make_gate();
  const Admission admission = gate.admit(kGateStart);
  EXPECT_TRUE(admission.admitted());
  EXPECT_EQ(admission.reason, GateReason::kNone);
  EXPECT_TRUE(admission.permit);
  EXPECT_EQ(gate.concurrency().in_flight(), 1u);
}

TEST(EndpointGate, BusyAtTheConcurrencyCapWithoutSpendingATokenOrProbe) {
  EndpointGateConfig config = gate_config();
  config.rate = {.per_second = 10, .burst = 5};
  EndpointGate gate = make_gate(config);
  ASSERT_TRUE(gate.admit(kGateStart).admitted());
  ASSERT_TRUE(gate.admit(kGateStart).admitted());
  const Admission busy = gate.admit(kGateStart);
  EXPECT_EQ(busy.verdict, GateVerdict::kBusy);
  EXPECT_EQ(busy.reason, GateReason::kConcurrencyLimit);
  EXPECT_FALSE(busy.retry_at);
  EXPECT_EQ(gate.rate_limiter().tokens_available(kGateStart), 3u);  // refusal spent nothing
}

TEST(EndpointGate, A08WaitsForTheNextTokenWhenRateLimited) {
  EndpointGate gate = make_gate();
  for (int i = 0; i < 2; ++i) {
    const Admission admission = gate.admit(kGateStart);
    ASSERT_TRUE(admission.admitted());
    gate.finish(admission.permit, EndpointHealth::kHealthy, kGateStart, kGateNoJitter);
  }
  const Admission wait = gate.admit(kGateStart);
  EXPECT_EQ(wait.verdict, GateVerdict::kWait);
  EXPECT_EQ(wait.reason, GateReason::kRateLimited);
  EXPECT_EQ(wait.retry_at, kGateStart + milliseconds(100));
  EXPECT_EQ(gate.concurrency().in_flight(), 0u);  // refusal took no slot
  EXPECT_TRUE(gate.admit(kGateStart + milliseconds(100)).admitted());
}

TEST(EndpointGate, A08DeliveredRateOverASimulatedMinute) {
  EndpointGateConfig config = gate_config();
  config.rate = {.per_second = 25};
  config.max_in_flight = 4;
  EndpointGate gate = make_gate(config);
  // Each delivery takes 30 ms; the dispatcher re-asks at retry_at or after a finish.
  std::vector<std::pair<TimePoint, CircuitPermit>> running;
  int delivered = 0;
  for (TimePoint now = kGateStart; now < kGateStart + seconds(60); now += milliseconds(1)) {
    std::erase_if(running, [&](const auto& r) {
      if (r.first > now) return false;
      gate.finish(r.second, EndpointHealth::kHealthy, now, kGateNoJitter);
      ++delivered;
      return true;
    });
    for (Admission a = gate.admit(now); a.admitted(); a = gate.admit(now)) {
      running.emplace_back(now + milliseconds(30), a.permit);
    }
  }
  // 25/s for 60 s plus the initial burst of 25, minus at most the ones still running.
  EXPECT_GE(delivered, 25 * 60 + 25 - 4 - 2);
  EXPECT_LE(delivered, 25 * 60 + 25 + 1);
}

TEST(EndpointGate, A07OpenCircuitWaitsThenAdmitsOneTrickleRequest) {
  EndpointGate gate = make_gate();
  open_circuit(gate);
  const Admission wait = gate.admit(kOpened + seconds(1));
  EXPECT_EQ(wait.verdict, GateVerdict::kWait);
  EXPECT_EQ(wait.reason, GateReason::kCircuitOpen);
  EXPECT_EQ(wait.retry_at, kOpened + seconds(10));

  const Admission trickle = gate.admit(kOpened + seconds(10));
  ASSERT_TRUE(trickle.admitted());
  EXPECT_TRUE(trickle.permit.trickle);
  const Admission second = gate.admit(kOpened + seconds(10));
  EXPECT_EQ(second.verdict, GateVerdict::kBusy);
  EXPECT_EQ(second.reason, GateReason::kProbeInFlight);
  EXPECT_TRUE(second.retry_at);  // fallback re-ask time (the silent request's timeout)

  const auto ramping =
      gate.finish(trickle.permit, EndpointHealth::kHealthy, kOpened + seconds(11), kGateNoJitter);
  ASSERT_TRUE(ramping);
  EXPECT_EQ(ramping->to, CircuitState::kHalfOpen);
  EXPECT_TRUE(gate.admit(kOpened + seconds(11)).admitted());
}

// A39: after recovery the gate admits 1, then 2 in flight (max_in_flight 2 here: then closed).
TEST(EndpointGate, A39_RampCapsTheConcurrencyAfterRecovery) {
  EndpointGateConfig config = gate_config();
  config.max_in_flight = 4;
  config.rate = {};
  EndpointGate gate = make_gate(config);
  open_circuit(gate);
  const TimePoint t = kOpened + seconds(10);
  const Admission trickle = gate.admit(t);
  ASSERT_TRUE(trickle.admitted());
  ASSERT_TRUE(gate.finish(trickle.permit, EndpointHealth::kHealthy, t, kGateNoJitter));
  auto admitted_at = [&](TimePoint now) {
    std::vector<CircuitPermit> permits;
    for (Admission a = gate.admit(now); a.admitted(); a = gate.admit(now)) {
      permits.push_back(a.permit);
    }
    const Admission refused = gate.admit(now);
    for (const auto& p : permits) gate.finish(p, EndpointHealth::kHealthy, now, kGateNoJitter);
    return std::pair(permits.size(), refused);
  };
  auto [first, refused] = admitted_at(t + milliseconds(500));
  EXPECT_EQ(first, 1u);
  EXPECT_EQ(refused.reason, GateReason::kRampUp);
  EXPECT_EQ(refused.retry_at, t + seconds(1));  // re-ask when the cap doubles
  EXPECT_EQ(admitted_at(t + milliseconds(1500)).first, 2u);
  EXPECT_EQ(gate.breaker().state(t + milliseconds(2500)), CircuitState::kClosed);  // cap 4
  const Admission closing = gate.admit(t + milliseconds(2500));
  ASSERT_TRUE(closing.transition);
  EXPECT_EQ(closing.transition->to, CircuitState::kClosed);
  gate.finish(closing.permit, EndpointHealth::kHealthy, t + milliseconds(2500), kGateNoJitter);
  EXPECT_EQ(admitted_at(t + milliseconds(2500)).first, 4u);
}

TEST(EndpointGate, NeutralOutcomeFreesTheSlotAndTheTrickle) {
  EndpointGate gate = make_gate();
  open_circuit(gate);
  const TimePoint t = kOpened + seconds(10);
  const Admission trickle = gate.admit(t);
  ASSERT_TRUE(trickle.permit.trickle);
  EXPECT_FALSE(gate.finish(trickle.permit, EndpointHealth::kNeutral, t, kGateNoJitter));
  EXPECT_EQ(gate.concurrency().in_flight(), 0u);
  const Admission again = gate.admit(t + milliseconds(100));
  EXPECT_TRUE(again.admitted());
  EXPECT_TRUE(again.permit.trickle);
}

TEST(EndpointGate, TrickleWaitsForASlotHeldByRequestsFromBeforeTheOpen) {
  EndpointGate gate = make_gate();
  const Admission slow = gate.admit(kGateStart);  // still running when the circuit opens
  open_circuit(gate);
  const Admission busy = gate.admit(kOpened + seconds(20));
  EXPECT_EQ(busy.verdict, GateVerdict::kBusy);  // open: one request at a time
  EXPECT_EQ(gate.breaker().state(kOpened + seconds(20)), CircuitState::kOpen);
  // The stale request ends: it frees its slot but its success does not start the ramp.
  EXPECT_FALSE(gate.finish(slow.permit, EndpointHealth::kHealthy, kOpened + seconds(20), 0.5));
  EXPECT_TRUE(gate.admit(kOpened + seconds(20)).permit.trickle);
}

TEST(EndpointGate, A07SlowAndFailingEndpointsDoNotBlockAHealthyOne) {
  EndpointGate slow = make_gate();
  EndpointGate failing = make_gate();
  EndpointGate healthy = make_gate();
  // The slow endpoint fills its slots and never answers; the failing one opens its circuit.
  while (slow.admit(kGateStart).admitted()) {
  }
  open_circuit(failing);
  EXPECT_EQ(slow.admit(kGateStart).verdict, GateVerdict::kBusy);
  EXPECT_EQ(failing.admit(kOpened).verdict, GateVerdict::kWait);
  // The healthy endpoint runs at its full rate meanwhile (10/s, burst 2, over 5 s).
  int delivered = 0;
  for (TimePoint now = kGateStart; now < kGateStart + seconds(5); now += milliseconds(1)) {
    for (Admission a = healthy.admit(now); a.admitted(); a = healthy.admit(now)) {
      healthy.finish(a.permit, EndpointHealth::kHealthy, now, kGateNoJitter);
      ++delivered;
    }
  }
  EXPECT_NEAR(delivered, 10 * 5 + 2, 1);
}

TEST(EndpointGate, RateLimitChangeAtRuntime) {
  EndpointGate gate = make_gate();
  gate.set_rate_limit({}, kGateStart);
  for (int i = 0; i < 50; ++i) {
    const Admission a = gate.admit(kGateStart);
    ASSERT_TRUE(a.admitted());
    gate.finish(a.permit, EndpointHealth::kHealthy, kGateStart, kGateNoJitter);
  }
}

TEST(EndpointGate, InvalidBreakerConfigIsRefused) {
  EndpointGateConfig config = gate_config();
  config.breaker.min_attempts = 0;
  EXPECT_FALSE(EndpointGate::create(config, kGateStart).has_value());
}

TEST(EndpointGate, Names) {
  EXPECT_EQ(to_string(GateVerdict::kWait), "wait");
  EXPECT_EQ(to_string(GateReason::kProbeInFlight), "probe_in_flight");
  EXPECT_EQ(to_string(GateReason::kRateLimited), "rate_limited");
  EXPECT_EQ(to_string(GateReason::kRampUp), "ramp_up");
}

}  // namespace
}  // namespace hookd
