// Isolation between endpoints (A07) and the per-endpoint rate limit (A08).
#include <algorithm>
#include <mutex>

#include "outbound/dispatcher_fixture.hpp"

namespace hookd::outbound::testing {
namespace {

using store::DeliveryStatus;
using Steady = std::chrono::steady_clock;

// A07: while one endpoint hangs, every delivery to a healthy endpoint arrives.
TEST_F(DispatcherTest, A07_HangingEndpointDoesNotDelayAHealthyOne) {
  receiver_.set_path("/hang", ReceiverBehavior::hang());
  add_endpoint("/hang", [](store::Endpoint& ep) { ep.total_timeout_ms = 60'000; });
  add_endpoint("/fast");
  std::mutex mutex;
  std::vector<Steady::time_point> arrivals;
  StopBeforeLocalsDie stop_first{this};
  receiver_.set_handler([&](const ReceivedRequest& r) {
    if (r.path == "/hang") return ReceiverBehavior::hang();
    std::lock_guard lock(mutex);
    arrivals.push_back(Steady::now());
    return ReceiverBehavior::respond(200);
  });
  start_dispatcher();
  constexpr int kMessages = 60;
  std::vector<Steady::time_point> published;
  for (int i = 0; i < kMessages; ++i) {
    published.push_back(Steady::now());
    publish(R"({"i":)" + std::to_string(i) + "}");
  }

  ASSERT_TRUE(eventually([&] { return requests_to("/fast") == kMessages; }, 20s));
  // The hanging endpoint is capped at its concurrency limit, nothing more went out.
  EXPECT_LE(requests_to("/hang"), fast_options().gate.max_in_flight);
  std::lock_guard lock(mutex);
  const auto worst = arrivals.back() - published.front();
  std::cout << "[ measure  ] A07: " << kMessages << " deliveries to the healthy endpoint within "
            << std::chrono::duration_cast<std::chrono::milliseconds>(worst).count()
            << " ms of the first publish, while the other endpoint hung\n";
}

// A08: an endpoint with rateLimit 20/s receives about 20 per second after the first burst
// (arrivals stamped with the fake clock, which the test moves on 50 ms at a time).
TEST_F(DispatcherTest, A08_RateLimitIsEnforced) {
  add_endpoint("/limited", [](store::Endpoint& ep) { ep.rate_limit = 20; });
  std::mutex mutex;
  std::vector<TimePoint> arrivals;
  StopBeforeLocalsDie stop_first{this};
  receiver_.set_handler([&](const ReceivedRequest&) {
    std::lock_guard lock(mutex);
    arrivals.push_back(clock_.now());
    return ReceiverBehavior::respond(200);
  });
  ASSERT_TRUE(publish_ticks(100));
  start_dispatcher();

  ASSERT_TRUE(advance_until([&] {
    std::lock_guard lock(mutex);
    return !arrivals.empty() && clock_.now() - arrivals.front() > 3500ms;
  }));
  std::lock_guard lock(mutex);
  const auto from = arrivals.front() + 1s;
  const auto to = arrivals.front() + 3s;
  const auto in_window =
      std::ranges::count_if(arrivals, [&](auto t) { return t >= from && t < to; });
  std::cout << "[ measure  ] A08: " << in_window << " deliveries in 2 s (limit 20/s)\n";
  EXPECT_GE(in_window, 25);  // well below 40: the limiter was not starved by the dispatcher
  EXPECT_LE(in_window, 44);  // 40 + one token of slack each side
}

}  // namespace
}  // namespace hookd::outbound::testing
