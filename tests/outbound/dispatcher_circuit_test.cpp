// The circuit breaker in the dispatcher, with real HTTP to a loopback receiver and the fake
// clock: an endpoint that keeps failing has its circuit opened and then gets only a trickle
// (A07, A39); one that fails two of every three requests keeps its traffic with the default
// breaker (A39); after recovery the backlog drains with a concurrency that ramps up, not all
// at once (A39).
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "outbound/dispatcher_fixture.hpp"

namespace hookd::outbound::testing {
namespace {

using store::DeliveryStatus;

// Holds every request it serves until the test answers the ones out (answer_all), and
// records how many were held at the receiver when each arrived (its concurrency).
class HoldingProbe {
 public:
  ReceiverBehavior serve() {
    std::unique_lock lock(mutex_);
    arrivals_.push_back(++held_);
    const std::uint64_t wave = wave_;
    answered_.wait(lock, [&] { return open_ || wave_ != wave; });
    --held_;
    return ReceiverBehavior::respond(200);
  }
  void answer_all() {
    std::lock_guard lock(mutex_);
    ++wave_;
    answered_.notify_all();
  }
  void open() {  // answers everything from now on
    std::lock_guard lock(mutex_);
    open_ = true;
    answered_.notify_all();
  }
  std::int64_t held() const {
    std::lock_guard lock(mutex_);
    return held_;
  }
  std::vector<int> arrivals() const {
    std::lock_guard lock(mutex_);
    return arrivals_;
  }
  // Declared after the test's StopBeforeLocalsDie: no request stays held while it stops.
  struct OpenFirst {
    HoldingProbe& probe;
    ~OpenFirst() { probe.open(); }
  };

 private:
  mutable std::mutex mutex_;
  std::condition_variable answered_;
  int held_ = 0;
  std::uint64_t wave_ = 0;
  bool open_ = false;
  std::vector<int> arrivals_;
};

class DispatcherCircuitTest : public DispatcherTest {
 protected:
  // Short breaker windows: opens on >= 90 % of >= 4 attempts going on for 200 ms.
  static DispatcherOptions short_breaker_options() {
    auto options = fast_options();
    options.gate.breaker = CircuitBreakerConfig{};
    options.gate.breaker.min_attempts = 4;
    options.gate.breaker.window = 400ms;
    options.gate.breaker.cooldown = 300ms;
    options.gate.breaker.min_probe_interval = 100ms;
    options.gate.breaker.ramp_interval = 500ms;
    options.retry.max_attempts = 1000;
    return options;
  }
};

// A07: a failing endpoint's circuit opens; nothing more goes to it within its (long)
// cool-down; the healthy endpoint is unaffected.
TEST_F(DispatcherCircuitTest, A07_OpenCircuitStopsRequestsToAFailingEndpoint) {
  receiver_.set_path("/failing", ReceiverBehavior::respond(503));
  add_endpoint("/failing");
  add_endpoint("/ok");
  auto options = short_breaker_options();
  options.gate.max_in_flight = 1;  // one at a time: nothing is in flight once it opened
  options.gate.breaker.cooldown = std::chrono::minutes(5);
  start_dispatcher(options);
  for (int i = 0; i < 5; ++i) publish(R"({"i":)" + std::to_string(i) + "}");

  ASSERT_TRUE(eventually([&] { return requests_to("/ok") == 5; }));
  ASSERT_TRUE(advance_until([&] { return dispatcher_->stats().open_circuits == 1; }));
  const std::size_t at_open = requests_to("/failing");
  ASSERT_TRUE(eventually([&] { return dispatcher_->stats().held == 0; }))
      << "held " << dispatcher_->stats().held << " in flight " << dispatcher_->stats().in_flight;
  EXPECT_TRUE(eventually([&] { return count(DeliveryStatus::kPending) == 5; }));
  // An absence: nothing may arrive during 4.5 of the 5 minutes (the jitter sample is 0.5).
  for (int i = 0; i < 9; ++i) {
    advance(30s);
    ASSERT_TRUE(settle());
  }
  EXPECT_EQ(requests_to("/failing"), at_open);
  EXPECT_GE(at_open, 4u);  // at least min_attempts
  EXPECT_EQ(count(DeliveryStatus::kDelivered), 5);
  EXPECT_GE(dispatcher_->stats().deferred, 1u);
  EXPECT_EQ(metrics_.open_circuits.get().value(), 1.0);
}

// A39: 503, 503, then 200 for every message; 20 at once are all delivered with the default
// breaker (the old one opened after five failures in a row and probed every 30 s).
TEST_F(DispatcherCircuitTest, A39_EndpointFailingTwoOfThreeIsDeliveredWithTheDefaultBreaker) {
  std::mutex mutex;
  std::map<std::string, int> seen;
  receiver_.set_handler([&](const ReceivedRequest& r) {
    std::lock_guard lock(mutex);
    const int n = ++seen[r.header("webhook-id").value_or("")];
    return ReceiverBehavior::respond(n % 3 == 0 ? 200 : 503);
  });
  StopBeforeLocalsDie stop{this};
  add_endpoint("/flaky");
  auto options = fast_options();
  options.gate.breaker = CircuitBreakerConfig{};  // the defaults
  options.gate.max_in_flight = 32;                // the config default
  start_dispatcher(options);
  for (int i = 0; i < 20; ++i) publish(R"({"i":)" + std::to_string(i) + "}");

  EXPECT_TRUE(advance_until([&] { return count(DeliveryStatus::kDelivered) == 20; }))
      << "delivered " << count(DeliveryStatus::kDelivered) << ", requests "
      << receiver_.request_count();
  EXPECT_EQ(dispatcher_->stats().open_circuits, 0);
}

// A39: a dead endpoint gets a trickle of about one request per cool-down; when it is back,
// its backlog drains at concurrency 1, then 2, 4, ... (the old breaker made every waiting
// retry due at once and sent max_in_flight requests together). The clock moves in steps;
// after recovery the receiver holds what the dispatcher sends until the test answers it, so
// the concurrency seen is the ramp's cap at that time, not a race with the request's length.
TEST_F(DispatcherCircuitTest, A39_DeadEndpointGetsATrickleThenItsBacklogRampsUp) {
  constexpr int kMessages = 60;
  std::atomic<bool> alive{false};
  std::atomic<std::size_t> requests_while_dead{0};
  HoldingProbe probe;
  receiver_.set_handler([&](const ReceivedRequest&) {
    if (!alive.load()) {
      requests_while_dead.fetch_add(1);
      return ReceiverBehavior::respond(503);
    }
    return probe.serve();
  });
  StopBeforeLocalsDie stop{this};
  HoldingProbe::OpenFirst open_first{probe};
  add_endpoint("/dead");
  auto options = short_breaker_options();
  options.gate.max_in_flight = 8;
  start_dispatcher(options);
  for (int i = 0; i < kMessages; ++i) publish(R"({"i":)" + std::to_string(i) + "}");

  ASSERT_TRUE(advance_until([&] { return dispatcher_->stats().open_circuits == 1; }));
  // Requests already handed to the client when it opened may still arrive: let them end.
  ASSERT_TRUE(eventually([&] { return dispatcher_->stats().in_flight == 0; }));
  const std::size_t at_open = requests_while_dead.load();
  const auto open_since = clock_.now();
  for (int i = 0; i < 30; ++i) {  // five cool-downs of 300 ms (the jitter sample is 0.5)
    advance(50ms);
    ASSERT_TRUE(settle());
  }
  const std::size_t trickle = requests_while_dead.load() - at_open;
  const auto open_for = clock_.now() - open_since;
  EXPECT_GE(trickle, 1u) << "an open circuit keeps a trickle going";
  EXPECT_LE(trickle, static_cast<std::size_t>(open_for / 240ms) + 1) << "one per cool-down";

  alive = true;
  // Each 100 ms of clock: wait until what the dispatcher sent is held at the receiver, then
  // answer it (the ramp doubles its cap every 500 ms).
  const auto held = [&] { return probe.held(); };
  for (Duration moved{0}; moved < 30s && count(DeliveryStatus::kDelivered) < kMessages;
       moved += 100ms) {
    advance(100ms);
    ASSERT_TRUE(settle(held)) << "held " << probe.held() << ", in flight "
                              << dispatcher_->stats().in_flight;
    probe.answer_all();
  }
  ASSERT_TRUE(eventually([&] { return count(DeliveryStatus::kDelivered) == kMessages; }))
      << count(DeliveryStatus::kDelivered);
  const std::vector<int> concurrency = probe.arrivals();
  ASSERT_GE(concurrency.size(), static_cast<std::size_t>(kMessages));
  const int peak = *std::ranges::max_element(concurrency);
  const auto first_above_two = std::ranges::find_if(concurrency, [](int c) { return c > 2; });
  std::string curve;
  for (int c : concurrency) curve += std::to_string(c) + " ";
  std::cout << "[ measure  ] A39: concurrency at each arrival after recovery: " << curve << "\n";
  EXPECT_TRUE(
      std::all_of(concurrency.begin(), concurrency.begin() + 5, [](int c) { return c <= 2; }))
      << "the first requests after recovery go one or two at a time: " << curve;
  EXPECT_GE(peak, 3) << "the ramp goes past 2: " << curve;
  EXPECT_GE(first_above_two - concurrency.begin(), 5) << curve;
  EXPECT_TRUE(eventually([&] { return dispatcher_->stats().open_circuits == 0; }));
  EXPECT_EQ(metrics_.open_circuits.get().value(), 0.0);
  // A41: one alert when it opened, one when it closed again (the half-open ramp raises none).
  EXPECT_TRUE(eventually([&] { return alerts_.types().size() == 2; }));
  EXPECT_EQ(alerts_.types(),
            (std::vector<std::string>{"hookd.circuit.opened", "hookd.circuit.closed"}));
  EXPECT_EQ(alerts_.all().front().second.value("appId", ""), app_.id);
}

}  // namespace
}  // namespace hookd::outbound::testing
