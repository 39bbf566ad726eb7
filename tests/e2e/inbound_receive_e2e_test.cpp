// The inbound gateway's receiving side through the real daemon: verification (401 with a
// reason, nothing stored), body limit (413), unknown source (404), dedup (200 for duplicates,
// forwarded once), replay window, secret rotation, the forward's signature and headers.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>

#include <atomic>
#include <thread>

#include "e2e/e2e_support.hpp"
#include "e2e/inbound_helpers.hpp"
#include "support/proc_threads.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using namespace hookd::e2e::inbound;
using hookd::testing::TestReceiver;

HttpHeaders core_headers(const hookd::testing::ReceivedRequest& r) {
  HttpHeaders out;
  for (const auto& [n, v] : r.headers) out.push_back({n, v});
  return out;
}

std::string replace_header(HeaderList& headers, const std::string& name, std::string value) {
  for (auto& [n, v] : headers) {
    if (n == name) {
      auto old = v;
      v = std::move(value);
      return old;
    }
  }
  return {};
}

TEST(InboundE2E, VerifiedEventIsStoredAnswered200AndForwardedSigned) {
  TestReceiver app;
  app.start();
  HookdProcess hookd(config_with_sources(
      standard_source("shop", app.url("/hooks/shop"), "business_key = \"order:{/data/order_id}\"",
                      "headers = [\"X-Shop-Topic\"]")));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const std::string body = R"({"type":"order.paid","data":{"order_id":"o-17"}})";
  auto headers = standard_headers("evt_1", body);
  headers.emplace_back("X-Shop-Topic", "orders");
  const auto reply = http_request("POST", hookd.url("/in/shop"), body, headers);
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.json().value("duplicate", true), false);

  ASSERT_TRUE(app.wait_for_requests(1, 20s)) << hookd.stderr_text();
  const auto forward = app.requests().front();
  EXPECT_EQ(forward.path, "/hooks/shop");
  EXPECT_EQ(forward.body, body);  // the exact bytes
  EXPECT_EQ(forward.header("Idempotency-Key").value_or(""), "order:o-17");
  EXPECT_EQ(forward.header("X-Hookd-Event-Id").value_or(""), "evt_1");
  EXPECT_EQ(forward.header("X-Hookd-Source").value_or(""), "shop");
  EXPECT_EQ(forward.header("X-Shop-Topic").value_or(""), "orders");
  EXPECT_EQ(forward.header("Content-Type").value_or(""), "application/json");
  auto verifier = Verifier::create(SchemeOptions{}, std::vector<std::string>{kForwardSecret});
  ASSERT_TRUE(verifier);
  const auto verified = verifier->verify(core_headers(forward), forward.body, now_unix());
  EXPECT_TRUE(verified) << verified.error().detail;

  const auto event = wait_for_status(hookd, "shop", "evt_1", "processed");
  ASSERT_TRUE(event.is_object());
  EXPECT_EQ(event.value("status", ""), "processed") << event.dump();
  EXPECT_EQ(event.value("businessKey", ""), "order:o-17");
  EXPECT_EQ(event.value("attempts", 0), 1);
  ASSERT_EQ(event["history"].size(), 2u) << event.dump();
  EXPECT_EQ(event["history"][0].value("to", ""), "received");
  EXPECT_EQ(event["history"][1].value("to", ""), "processed");

  // The CLI reads the same inbox from the database.
  const auto listed =
      hookd.run_command({"inbox", "list", "--json", "--config", hookd.config_file().string(),
                         "--database", hookd.database().string(), "--source", "shop"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto rows = nlohmann::json::parse(listed.out, nullptr, false);
  ASSERT_EQ(rows.size(), 1u) << listed.out;
  EXPECT_EQ(rows[0].value("status", ""), "processed");
  const auto shown =
      hookd.run_command({"inbox", "show", rows[0].value("id", ""), "--config",
                         hookd.config_file().string(), "--database", hookd.database().string()});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(nlohmann::json::parse(shown.out, nullptr, false)["history"].size(), 2u) << shown.out;
}

TEST(InboundE2E, SameEventManyTimesAlsoConcurrentlyIsForwardedOnce) {  // A10, A14
  TestReceiver app;
  app.start();
  HookdProcess hookd(config_with_sources(standard_source("shop", app.url("/in"))));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const std::string body = R"({"type":"order.paid","data":{"order_id":"o-1"}})";
  const auto headers = standard_headers("evt_dup", body);
  std::atomic<int> ok{0};
  std::atomic<int> duplicates{0};
  std::vector<std::thread> senders;
  for (int t = 0; t < 8; ++t) {
    senders.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        const auto r = http_request("POST", hookd.url("/in/shop"), body, headers);
        if (r.status == 200) ++ok;  // A14: a duplicate is a 200, never an error
        if (r.status == 200 && r.json().value("duplicate", false)) ++duplicates;
      }
    });
  }
  for (auto& t : senders) t.join();
  EXPECT_EQ(ok.load(), 40);
  EXPECT_EQ(duplicates.load(), 39);
  wait_for_status(hookd, "shop", "evt_dup", "processed");
  std::this_thread::sleep_for(500ms);  // nothing more arrives
  EXPECT_EQ(forwards_of(app, "evt_dup"), 1u);
  EXPECT_EQ(inbox_list(hookd)["data"].size(), 1u);
  EXPECT_EQ(
      metric_value(hookd, R"(hookd_inbound_requests_total{source="shop",outcome="duplicate"})"),
      39);
}

TEST(InboundE2E, EveryForgeryIsRejected401WithAReasonAndNothingStored) {  // A16
  TestReceiver app;
  app.start();
  HookdProcess hookd(config_with_sources(standard_source("shop", app.url("/in"))));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const std::string body = R"({"type":"order.paid","data":{"order_id":"o-2","amount":100}})";
  const auto post = [&](const std::string& b, const HeaderList& h) {
    return http_request("POST", hookd.url("/in/shop"), b, h);
  };
  struct Case {
    std::string name;
    std::string body;
    HeaderList headers;
    std::string reason;
  };
  std::vector<Case> cases;
  {
    auto h = standard_headers("evt_f1", body, now_unix(), "whsec_" + std::string(32, 'A'));
    cases.push_back({"wrong secret", body, h, "no_matching_signature"});
  }
  {
    std::string changed = body;
    changed[changed.find("100")] = '9';  // one byte
    cases.push_back({"body changed by one byte", changed, standard_headers("evt_f2", body),
                     "no_matching_signature"});
  }
  {
    const std::string reserialized = nlohmann::json::parse(body).dump(2);
    cases.push_back({"re-serialized JSON", reserialized, standard_headers("evt_f3", body),
                     "no_matching_signature"});
  }
  cases.push_back({"timestamp too old", body, standard_headers("evt_f4", body, now_unix() - 600),
                   "timestamp_too_old"});
  cases.push_back({"timestamp in the future", body,
                   standard_headers("evt_f5", body, now_unix() + 600), "timestamp_too_new"});
  {
    auto h = standard_headers("evt_f6", body, now_unix() - 100);
    replace_header(h, "webhook-timestamp", std::to_string(now_unix()));  // old signature
    cases.push_back({"changed timestamp, old signature", body, h, "no_matching_signature"});
  }
  {
    auto h = standard_headers("evt_f7", body);
    std::erase_if(h, [](const auto& kv) { return kv.first == "webhook-signature"; });
    cases.push_back({"missing signature header", body, h, "missing_header"});
  }
  for (const auto& c : cases) {
    const auto r = post(c.body, c.headers);
    EXPECT_EQ(r.status, 401) << c.name << ": " << r.body;
    EXPECT_EQ(r.json().value("reason", ""), c.reason) << c.name << ": " << r.body;
    EXPECT_EQ(r.body.find("whsec_"), std::string::npos) << c.name;
  }
  EXPECT_TRUE(inbox_list(hookd)["data"].empty());
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(app.request_count(), 0u);
  EXPECT_EQ(
      metric_value(
          hookd,
          R"(hookd_inbound_requests_total{source="shop",outcome="rejected_no_matching_signature"})"),
      4);
  EXPECT_EQ(metric_value(hookd, R"(hookd_inbound_rejections_total{reason="timestamp"})"), 2);
}

TEST(InboundE2E, ReplayInsideTheWindowIsDeduplicatedAfterItRejected) {  // A17
  TestReceiver app;
  app.start();
  HookdProcess hookd(
      config_with_sources(standard_source("shop", app.url("/in"), "tolerance = \"2s\"")));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const std::string body = R"({"data":{"order_id":"o-3"}})";
  const auto captured = standard_headers("evt_replay", body);
  ASSERT_EQ(http_request("POST", hookd.url("/in/shop"), body, captured).status, 200);
  const auto inside = http_request("POST", hookd.url("/in/shop"), body, captured);
  EXPECT_EQ(inside.status, 200);
  EXPECT_TRUE(inside.json().value("duplicate", false));
  std::this_thread::sleep_for(3500ms);
  const auto after = http_request("POST", hookd.url("/in/shop"), body, captured);
  EXPECT_EQ(after.status, 401);
  EXPECT_EQ(after.json().value("reason", ""), "timestamp_too_old");
  wait_for_status(hookd, "shop", "evt_replay", "processed");
  EXPECT_EQ(forwards_of(app, "evt_replay"), 1u);
}

TEST(InboundE2E, DuringRotationOldAndNewSecretsVerify) {  // A18
  TestReceiver app;
  app.start();
  const std::string next = "whsec_" + std::string("bmV3LXNlY3JldC1uZXctc2VjcmV0LTEyMzQ1Njc4");
  std::string source = standard_source("shop", app.url("/in"));
  source.replace(source.find("secrets = [\""), 12, "secrets = [\"" + next + "\", \"");
  HookdProcess hookd(config_with_sources(source));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const std::string body = R"({"data":{"order_id":"o-4"}})";
  EXPECT_EQ(http_request("POST", hookd.url("/in/shop"), body,
                         standard_headers("evt_old", body, now_unix(), kSenderSecret))
                .status,
            200);
  EXPECT_EQ(http_request("POST", hookd.url("/in/shop"), body,
                         standard_headers("evt_new", body, now_unix(), next))
                .status,
            200);
  EXPECT_EQ(
      http_request("POST", hookd.url("/in/shop"), body,
                   standard_headers("evt_bad", body, now_unix(), "whsec_" + std::string(32, 'B')))
          .status,
      401);
}

TEST(InboundE2E, OversizedBodyIs413UnknownSourceIs404WrongMethodIs405) {  // A33 (inbound)
  TestReceiver app;
  app.start();
  HookdProcess hookd(
      config_with_sources(standard_source("shop", app.url("/in"), "max_body_bytes = \"1KiB\"")));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const std::string big = R"({"pad":")" + std::string(2000, 'x') + "\"}";
  const auto too_large =
      http_request("POST", hookd.url("/in/shop"), big, standard_headers("evt_big", big));
  EXPECT_EQ(too_large.status, 413) << too_large.body;
  const auto unknown = send_event(hookd, "nope", "evt_x", "{}");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(http_get(hookd.url("/in/shop")).status, 405);
  EXPECT_TRUE(inbox_list(hookd)["data"].empty());
  EXPECT_EQ(
      metric_value(hookd, R"(hookd_inbound_requests_total{source="shop",outcome="too_large"})"), 1);
}

// Accepting wins the CPU over forwarding: the two forwarding threads run
// [delivery] inbound_forward_nice (default 10) above the level hookd was started at (the
// test's own, e.g. under `nice make test`), the request threads at that level.
TEST(InboundE2E, ForwardingThreadsRunAtALowerPriorityThanRequestThreads) {
  const int base = ::getpriority(PRIO_PROCESS, 0);
  const std::vector<int> lowered_level{std::min(19, base + 10)};
  TestReceiver app;
  app.start();
  HookdProcess hookd(config_with_sources(standard_source("shop", app.url("/hooks/shop"))));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  std::map<std::string, std::vector<int>> threads;
  const bool lowered = eventually([&] {
    threads = hookd::testing::thread_nice_levels(hookd.pid());
    return threads["hookd-forward"] == lowered_level && threads["hookd-fwd-http"] == lowered_level;
  });
  EXPECT_TRUE(lowered) << "hookd-forward/hookd-fwd-http not at nice " << lowered_level[0];
  ASSERT_FALSE(threads["hookd-http"].empty());
  for (int nice : threads["hookd-http"]) EXPECT_EQ(nice, base);
  for (int nice : threads["hookd-inbox"]) EXPECT_EQ(nice, base);
}

}  // namespace
}  // namespace hookd::e2e
