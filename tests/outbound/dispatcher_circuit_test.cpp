// The circuit breaker in the dispatcher, with real HTTP to a loopback receiver: an endpoint
// that keeps failing has its circuit opened and then gets only a trickle (A07, A39); one that
// fails two of every three requests keeps its traffic with the default breaker (A39); after
// recovery the backlog drains with a concurrency that ramps up, not all at once (A39).
#include <algorithm>
#include <mutex>

#include "outbound/dispatcher_fixture.hpp"

namespace hookd::outbound::testing {
namespace {

using store::DeliveryStatus;

// Counts requests in flight at the receiver: each request's concurrency when it arrived.
class ConcurrencyProbe {
 public:
  // Runs `serve` (which may sleep) counted as in flight.
  template <class F>
  auto around(F&& serve) {
    {
      std::lock_guard lock(mutex_);
      arrivals_.push_back(++in_flight_);
    }
    auto result = serve();
    std::lock_guard lock(mutex_);
    --in_flight_;
    return result;
  }
  std::vector<int> arrivals() const {
    std::lock_guard lock(mutex_);
    return arrivals_;
  }

 private:
  mutable std::mutex mutex_;
  int in_flight_ = 0;
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
  ASSERT_TRUE(eventually([&] { return dispatcher_->stats().open_circuits == 1; }));
  const std::size_t at_open = requests_to("/failing");
  ASSERT_TRUE(eventually([&] { return dispatcher_->stats().held == 0; }))
      << "held " << dispatcher_->stats().held << " in flight " << dispatcher_->stats().in_flight;
  EXPECT_TRUE(eventually([&] { return count(DeliveryStatus::kPending) == 5; }));
  std::this_thread::sleep_for(500ms);  // an absence: nothing may arrive meanwhile
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

  EXPECT_TRUE(eventually([&] { return count(DeliveryStatus::kDelivered) == 20; }, 15s))
      << "delivered " << count(DeliveryStatus::kDelivered) << ", requests "
      << receiver_.request_count();
  EXPECT_EQ(dispatcher_->stats().open_circuits, 0);
}

// A39: a dead endpoint gets a trickle of about one request per cool-down; when it is back,
// its backlog drains at concurrency 1, then 2, 4, ... (the old breaker made every waiting
// retry due at once and sent max_in_flight requests together).
TEST_F(DispatcherCircuitTest, A39_DeadEndpointGetsATrickleThenItsBacklogRampsUp) {
  constexpr int kMessages = 60;
  std::atomic<bool> alive{false};
  std::atomic<std::size_t> requests_while_dead{0};
  ConcurrencyProbe probe;
  receiver_.set_handler([&](const ReceivedRequest&) {
    if (!alive.load()) {
      requests_while_dead.fetch_add(1);
      return ReceiverBehavior::respond(503);
    }
    return probe.around([] {
      std::this_thread::sleep_for(30ms);
      return ReceiverBehavior::respond(200);
    });
  });
  StopBeforeLocalsDie stop{this};
  add_endpoint("/dead");
  auto options = short_breaker_options();
  options.gate.max_in_flight = 8;
  start_dispatcher(options);
  for (int i = 0; i < kMessages; ++i) publish(R"({"i":)" + std::to_string(i) + "}");

  ASSERT_TRUE(eventually([&] { return dispatcher_->stats().open_circuits == 1; }));
  // Requests already handed to the client when it opened may still arrive: let them end.
  ASSERT_TRUE(eventually([&] { return dispatcher_->stats().in_flight == 0; }));
  const std::size_t at_open = requests_while_dead.load();
  const auto open_since = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(1500ms);  // five cool-downs of 300 ms (+-20 %)
  const std::size_t trickle = requests_while_dead.load() - at_open;
  const auto open_for = std::chrono::steady_clock::now() - open_since;
  EXPECT_GE(trickle, 1u) << "an open circuit keeps a trickle going";
  EXPECT_LE(trickle, static_cast<std::size_t>(open_for / 240ms) + 1) << "one per cool-down";

  alive = true;
  ASSERT_TRUE(eventually([&] { return count(DeliveryStatus::kDelivered) == kMessages; }))
      << count(DeliveryStatus::kDelivered);
  const std::vector<int> concurrency = probe.arrivals();
  ASSERT_GE(concurrency.size(), static_cast<std::size_t>(kMessages));
  const int peak = *std::ranges::max_element(concurrency);
  const auto first_above_two = std::ranges::find_if(concurrency, [](int c) { return c > 2; });
  std::string curve;
  for (int c : concurrency) curve += std::to_string(c) + " ";
  EXPECT_TRUE(
      std::all_of(concurrency.begin(), concurrency.begin() + 5, [](int c) { return c <= 2; }))
      << "the first requests after recovery go one or two at a time: " << curve;
  EXPECT_GE(peak, 3) << "the ramp goes past 2: " << curve;
  EXPECT_GE(first_above_two - concurrency.begin(), 5) << curve;
  EXPECT_TRUE(eventually([&] { return dispatcher_->stats().open_circuits == 0; }));
  EXPECT_EQ(metrics_.open_circuits.get().value(), 0.0);
}

}  // namespace
}  // namespace hookd::outbound::testing
