// An application's rate limit (Svix throttleRate on ApplicationIn, issue 17 item 4): all
// deliveries to all its endpoints together at most that many per second, besides each
// endpoint's own limit. Arrivals are stamped with the fake clock, which the test moves on
// 50 ms at a time; the bounds count arrivals per window, no wall-clock timing.
#include <algorithm>
#include <mutex>

#include "outbound/dispatcher_fixture.hpp"

namespace hookd::outbound::testing {
namespace {

struct Arrival {
  std::string path;
  TimePoint at{};
};

// App limit 20/s over two endpoints, one of them limited to 5/s itself. Fails without the
// dispatcher's application limiter (checked: with the app_limiter() check removed from pump(),
// 69 deliveries arrive in the first second, all 60 to /free, and the first-second and window
// bounds fail), and if the endpoint's own limit is no longer applied besides it (the /slow
// bound).
TEST_F(DispatcherTest, ApplicationRateLimitCoversAllItsEndpoints) {
  app_.rate_limit = 20;
  ASSERT_TRUE(store_->update_application(app_).has_value());
  add_endpoint("/slow", [](store::Endpoint& ep) { ep.rate_limit = 5; });
  add_endpoint("/free");
  std::mutex mutex;
  std::vector<Arrival> arrivals;
  StopBeforeLocalsDie stop_first{this};
  receiver_.set_handler([&](const ReceivedRequest& r) {
    std::lock_guard lock(mutex);
    arrivals.push_back({r.path, clock_.now()});
    return ReceiverBehavior::respond(200);
  });
  ASSERT_TRUE(publish_ticks(60));  // 120 deliveries: 6 s at 20/s
  start_dispatcher();

  ASSERT_TRUE(advance_until([&] {
    std::lock_guard lock(mutex);
    return !arrivals.empty() && clock_.now() - arrivals.front().at > 3500ms;
  }));
  std::lock_guard lock(mutex);
  const auto start = arrivals.front().at;
  const auto count = [&](TimePoint from, TimePoint to, std::string_view path) {
    return std::ranges::count_if(arrivals, [&](const Arrival& a) {
      return a.at >= from && a.at < to && (path.empty() || a.path == path);
    });
  };
  // The first second: the full bucket (20) and a second's refill (20), one token of slack.
  EXPECT_LE(count(start, start + 1s, ""), 41);
  const auto total = count(start + 1s, start + 3s, "");
  const auto slow = count(start + 1s, start + 3s, "/slow");
  std::cout << "[ measure  ] app limit: " << total << " deliveries in 2 s (limit 20/s), " << slow
            << " of them to the endpoint limited to 5/s\n";
  EXPECT_GE(total, 25);  // well below 40: the limiter was not starved by the dispatcher
  EXPECT_LE(total, 42);  // 40 + one token of slack each side
  EXPECT_LE(slow, 13);   // its own 5/s (10 in 2 s, slack for stamps) still holds
  EXPECT_GE(slow, 4);    // and the other endpoint does not take all the application's tokens
  EXPECT_GE(total - slow, 12);
}

}  // namespace
}  // namespace hookd::outbound::testing
