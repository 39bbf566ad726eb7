// Endpoint isolation through the real daemon: a hanging endpoint does not delay a healthy
// one (A07), the per-endpoint rate limit holds (A08), and the HTTP client never retries by
// itself — one logged attempt is one request on the wire (A09).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <iostream>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/hookd_process.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using hookd::testing::ReceivedRequest;
using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

// A07: while one endpoint hangs (its attempts hold their slots for 8 s), every delivery to
// the healthy endpoint arrives, before a single attempt to the hanging one has ended.
TEST(IsolationE2E, A07_HangingEndpointDoesNotDelayAHealthyOne) {
  constexpr int kMessages = 30;
  ArrivalLog log;
  TestReceiver receiver;
  log.attach(receiver, [](const ReceivedRequest& r) {
    return r.path == "/hang" ? ReceiverBehavior::hang() : ReceiverBehavior::respond(200);
  });
  receiver.start();
  HookdProcess hookd(test_config({{"timeout", "\"10s\""}, {"lease_duration", "\"20s\""}}));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a07");
  const std::string hanging =
      api.create_endpoint(app, {{"url", receiver.url("/hang")}, {"timeoutMs", 8000}});
  api.create_endpoint(app, receiver.url("/healthy"));

  const auto first_publish = Steady::now();
  std::vector<std::string> ids;
  for (int i = 0; i < kMessages; ++i) {
    const HttpReply reply = api.publish(app, "tick", {{"i", i}});
    ASSERT_EQ(reply.status, 202) << reply.body;
    ids.push_back(reply.json().value("id", ""));
  }
  auto healthy_count = [&] {
    const auto all = log.all();
    return std::ranges::count_if(all, [](const Arrival& a) { return a.path == "/healthy"; });
  };
  ASSERT_TRUE(eventually([&] { return healthy_count() == kMessages; }, 7s))
      << healthy_count() << " of " << kMessages;
  const auto all_healthy = Steady::now();
  // No attempt to the hanging endpoint has finished yet: the healthy deliveries did not wait.
  EXPECT_TRUE(api.attempts_for_endpoint(app, hanging).empty());
  std::int64_t worst = 0;
  for (const auto& a : log.all()) {
    if (a.path == "/healthy") {
      worst = std::max<std::int64_t>(
          worst, std::chrono::duration_cast<Millis>(a.at - first_publish).count());
    }
  }
  std::cout << "[ A07 ] " << kMessages << " healthy deliveries within " << worst
            << " ms of the first publish while the other endpoint hung (checked at "
            << std::chrono::duration_cast<Millis>(all_healthy - first_publish).count() << " ms)\n";
}

// A08: an endpoint with rateLimit 10/s (bucket of 10) receives at most 10 + 10/s: in the
// first 3 s after the first delivery at most ~40 of 60 queued messages, at a steady rate.
TEST(IsolationE2E, A08_PerEndpointRateLimitIsEnforced) {
  constexpr int kMessages = 60;
  ArrivalLog log;
  TestReceiver receiver;
  log.attach(receiver);
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a08");
  api.create_endpoint(app, {{"url", receiver.url("/limited")}, {"rateLimit", 10}});
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_EQ(api.publish(app, "tick", {{"i", i}}).status, 202);
  }

  ASSERT_TRUE(eventually(
      [&] {
        const auto all = log.all();
        return !all.empty() && Steady::now() - all.front().at > 3200ms;
      },
      20s));
  const auto all = log.all();
  const auto start = all.front().at;
  auto count_in = [&](Steady::duration from, Steady::duration to) {
    return std::ranges::count_if(
        all, [&](const Arrival& a) { return a.at >= start + from && a.at < start + to; });
  };
  const auto first_3s = count_in(0s, 3s);
  const auto steady_2s = count_in(1s, 3s);
  std::cout << "[ A08 ] limit 10/s: " << first_3s << " deliveries in the first 3 s, " << steady_2s
            << " in the 2 s after the first second\n";
  EXPECT_LE(first_3s, 10 + 30 + 2);  // burst + rate x 3 s + slack; unlimited: all 60
  EXPECT_GE(first_3s, 25);           // the limiter does not starve the endpoint either
  EXPECT_LE(steady_2s, 22);
  EXPECT_GE(steady_2s, 12);
}

// A09: across successes, 503s, resets and client timeouts, the attempts in the log equal the
// requests the receiver saw: no hidden retry by the HTTP client.
TEST(IsolationE2E, A09_OneLoggedAttemptIsOneRequestOnTheWire) {
  constexpr int kMessages = 8;
  TestReceiver receiver;
  std::atomic<int> n{0};
  receiver.set_handler([&n](const ReceivedRequest&) {
    switch (n++ % 4) {
      case 0:
        return ReceiverBehavior::respond(503);
      case 1:
        return ReceiverBehavior::reset();
      case 2:
        return ReceiverBehavior::respond(200).after(1500ms);  // the client gives up at 300 ms
      default:
        return ReceiverBehavior::respond(200);
    }
  });
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a09");
  const std::string ep =
      api.create_endpoint(app, {{"url", receiver.url("/mixed")}, {"timeoutMs", 300}});
  std::vector<std::string> ids;
  for (int i = 0; i < kMessages; ++i) {
    const HttpReply reply = api.publish(app, "tick", {{"i", i}});
    ASSERT_EQ(reply.status, 202);
    ids.push_back(reply.json().value("id", ""));
  }

  auto finished = [&] {
    std::size_t done = api.dead_letters(app)["data"].size();
    for (const auto& id : ids) {
      const auto attempts = api.attempts_for_message(app, id);
      for (const auto& a : attempts["data"]) {
        if (a.value("status", 2) == 0) {
          ++done;
          break;
        }
      }
    }
    return done == ids.size();
  };
  ASSERT_TRUE(eventually(finished, 30s, 100ms)) << [&] {
    std::string out = api.dead_letters(app).dump() + "\n";
    for (const auto& id : ids) out += api.attempts_for_message(app, id).dump() + "\n";
    return out;
  }();
  const auto logged = api.attempts_for_endpoint(app, ep).size();
  std::cout << "[ A09 ] " << logged << " attempts logged, " << receiver.request_count()
            << " requests seen\n";
  EXPECT_EQ(logged, receiver.request_count());
  EXPECT_GT(logged, static_cast<std::size_t>(kMessages));
}

}  // namespace
}  // namespace hookd::e2e
