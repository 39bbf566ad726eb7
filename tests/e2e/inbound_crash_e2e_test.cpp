// The inbound gateway under crashes and lost answers, through the real daemon: kill -9 during
// inbound load (A23), an app that crashes before or after storing (A24), and an app whose
// answer is lost after it processed the event (A25). The "application" is a TestReceiver
// that applies each Idempotency-Key once and counts every delivery.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "e2e/inbound_helpers.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using namespace hookd::e2e::inbound;
using hookd::testing::ReceivedRequest;
using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

// The application: applies the business operation once per Idempotency-Key.
class Application {
 public:
  void install(TestReceiver& receiver) {
    receiver.set_handler([this](const ReceivedRequest& r) {
      std::lock_guard lock(mu_);
      const auto key = r.header("Idempotency-Key").value_or("");
      ++deliveries_[key];
      applied_.insert(key);  // the business effect: a set, so a repeat has no effect
      return ReceiverBehavior::respond(200);
    });
  }
  std::set<std::string> applied() const {
    std::lock_guard lock(mu_);
    return applied_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, int> deliveries_;
  std::set<std::string> applied_;
};

std::string order_body(int n) {
  return nlohmann::json{{"type", "order.paid"}, {"data", {{"order_id", n}}}}.dump();
}

std::string order_key(int n) {
  std::string key = "order:";
  key += std::to_string(n);
  return key;
}

std::string event_id(int n) {
  std::string id = "evt_";
  id += std::to_string(n);
  return id;
}

TEST(InboundCrashE2E, KillNineUnderLoadLosesNoAcknowledgedEvent) {  // A23
  TestReceiver receiver;
  Application app;
  app.install(receiver);
  receiver.start();
  HookdProcess hookd(config_with_sources(
      standard_source("shop", receiver.url("/app"), "business_key = \"order:{/data/order_id}\"")));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  std::atomic<std::uint16_t> port{hookd.port()};

  constexpr int kEvents = 600;
  constexpr int kSenders = 4;
  std::mutex acked_mu;
  std::set<int> acked;  // events that got a 200
  std::atomic<int> next{0};
  std::vector<std::thread> senders;
  for (int s = 0; s < kSenders; ++s) {
    senders.emplace_back([&] {
      for (int n = next++; n < kEvents; n = next++) {
        // A real sender: re-signs and retries until it gets a 2xx.
        for (int attempt = 0; attempt < 2000; ++attempt) {
          const std::string url = "http://127.0.0.1:" + std::to_string(port.load()) + "/in/shop";
          const auto body = order_body(n);
          HttpCall call{"POST", url, body, standard_headers(event_id(n), body), 2s};
          if (http_call(call).status == 200) {
            std::lock_guard lock(acked_mu);
            acked.insert(n);
            break;
          }
          std::this_thread::sleep_for(20ms);
        }
      }
    });
  }
  std::mt19937 rng(12345);
  int crashes = 0;
  for (int crash = 0; crash < 3 && next.load() < kEvents; ++crash, ++crashes) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150 + rng() % 400));
    hookd.kill9();
    ASSERT_TRUE(hookd.start()) << hookd.last_error();
    port = hookd.port();
  }
  for (auto& t : senders) t.join();
  EXPECT_GE(crashes, 1);  // at least one kill -9 hit the load
  ASSERT_EQ(acked.size(), static_cast<std::size_t>(kEvents));

  // Every acknowledged event is forwarded (at least once) and applied once.
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (app.applied().size() < acked.size() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(100ms);
  }
  std::set<std::string> expected;
  for (int n : acked) expected.insert(order_key(n));
  EXPECT_EQ(app.applied(), expected);
  EXPECT_GE(receiver.request_count(), expected.size());
  // And the inbox says so: one row per event, every one processed.
  std::size_t processed = 0;
  std::optional<std::string> iterator;
  for (int page = 0; page < 20; ++page) {
    auto list = hookd
                    .get("/api/v1/hookd/inbox?limit=250&status=processed" +
                         (iterator ? "&iterator=" + *iterator : std::string()))
                    .json();
    processed += list["data"].size();
    if (list.value("done", true) || !list["iterator"].is_string()) break;
    iterator = list["iterator"].get<std::string>();
  }
  for (int i = 0; i < 100 && processed < expected.size(); ++i) {
    std::this_thread::sleep_for(100ms);
    processed = inbox_list(hookd, "&status=processed")["data"].size();
  }
  EXPECT_EQ(processed, expected.size());
}

TEST(InboundCrashE2E, AppCrashingBeforeOrAfterStoringLosesNothingAndAppliesOnce) {  // A24, A25
  TestReceiver receiver;
  // Before storing: a reset. After storing (processed, then the answer is lost): a drop.
  receiver.enqueue("/before", ReceiverBehavior::reset());
  receiver.enqueue("/after", ReceiverBehavior::process_then_drop());
  receiver.start();
  HookdProcess hookd(
      config_with_sources(standard_source("before", receiver.url("/before"),
                                          "business_key = \"order:{/data/order_id}\"") +
                          standard_source("after", receiver.url("/after"),
                                          "business_key = \"order:{/data/order_id}\"")));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ASSERT_EQ(send_event(hookd, "before", "evt_b", order_body(1)).status, 200);
  ASSERT_EQ(send_event(hookd, "after", "evt_a", order_body(2)).status, 200);
  for (const std::string source : {"before", "after"}) {
    const std::string id = source == "before" ? "evt_b" : "evt_a";
    const auto e = wait_for_status(hookd, source, id, "processed");
    EXPECT_EQ(e.value("status", ""), "processed") << e.dump();
    EXPECT_EQ(e.value("attempts", 0), 2) << e.dump();
  }
  // The retry carries the same webhook-id and Idempotency-Key, so the app can tell it is the
  // same event and apply it once (A25: the lost answer's retry is deduplicated downstream).
  std::map<std::string, std::set<std::string>> ids;
  std::map<std::string, std::set<std::string>> keys;
  std::map<std::string, int> count;
  for (const auto& r : receiver.requests()) {
    ids[r.path].insert(r.header("webhook-id").value_or(""));
    keys[r.path].insert(r.header("Idempotency-Key").value_or(""));
    ++count[r.path];
  }
  EXPECT_EQ(count["/before"], 2);
  EXPECT_EQ(count["/after"], 2);
  EXPECT_EQ(ids["/after"].size(), 1u);
  EXPECT_EQ(keys["/after"], (std::set<std::string>{"order:2"}));
  EXPECT_EQ(keys["/before"], (std::set<std::string>{"order:1"}));
  EXPECT_EQ(receiver.processed_count(), 3u);  // after: processed twice (deduplicated by key)
}

TEST(InboundCrashE2E, AppThatNeverRecoversEndsDeadAndAudited) {  // A04 (inbound side)
  TestReceiver receiver;
  receiver.set_default(ReceiverBehavior::respond(422));
  receiver.start();
  HookdProcess hookd(config_with_sources(standard_source("shop", receiver.url("/app"))));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ASSERT_EQ(send_event(hookd, "shop", "evt_dead", order_body(3)).status, 200);
  const auto e = wait_for_status(hookd, "shop", "evt_dead", "dead");
  EXPECT_EQ(e.value("status", ""), "dead") << e.dump();
  EXPECT_EQ(receiver.request_count(), 1u);  // 422 is not retried
  const auto dead = inbox_list(hookd, "&status=dead");
  EXPECT_EQ(dead["data"].size(), 1u);
  const auto audit = hookd.get("/api/v1/hookd/audit").json();
  bool found = false;
  for (const auto& a : audit["data"]) found |= a.dump().find("inbox.dead") != std::string::npos;
  EXPECT_TRUE(found) << audit.dump();
}

}  // namespace
}  // namespace hookd::e2e
