// Outbound delivery through the real daemon: API → store → dispatcher → receiver.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <map>
#include <set>
#include <thread>

#include "e2e/api_client.hpp"
#include "e2e/hookd_process.hpp"
#include "hookd/signing.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

HttpHeaders headers_of(const hookd::testing::ReceivedRequest& request) {
  HttpHeaders headers;
  for (const auto& [name, value] : request.headers) headers.push_back({name, value});
  return headers;
}

TEST(DeliveryE2E, PublishedMessageArrivesSignedWithTheEndpointSecret) {
  TestReceiver receiver;
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("e2e");
  const std::string ep = api.create_endpoint(app, receiver.url("/hook"));
  const std::string secret = api.endpoint_secret(app, ep);
  const HttpReply published = api.publish(app, "user.created", {{"user", "u_1"}});
  ASSERT_EQ(published.status, 202) << published.body;
  const std::string msg_id = published.json().value("id", "");

  ASSERT_TRUE(receiver.wait_for_requests(1, 20s)) << hookd.stderr_text();
  const auto request = receiver.requests().front();
  EXPECT_EQ(request.header("webhook-id").value_or(""), msg_id);
  auto verifier = Verifier::create(SchemeOptions{}, std::vector<std::string>{secret});
  ASSERT_TRUE(verifier) << verifier.error().message;
  const auto verified = verifier->verify(headers_of(request), request.body, std::time(nullptr));
  EXPECT_TRUE(verified) << verified.error().detail;
  EXPECT_EQ(nlohmann::json::parse(request.body).value("user", ""), "u_1");
}

TEST(DeliveryE2E, RetriesTwo503sThenDelivers) {  // A01
  TestReceiver receiver;
  receiver.enqueue("/hook", ReceiverBehavior::respond(503));
  receiver.enqueue("/hook", ReceiverBehavior::respond(503));
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a01");
  api.create_endpoint(app, receiver.url("/hook"));
  const HttpReply published = api.publish(app, "invoice.paid", {{"n", 1}});
  ASSERT_EQ(published.status, 202) << published.body;
  const std::string msg_id = published.json().value("id", "");

  ASSERT_TRUE(receiver.wait_for_requests(3, 30s)) << hookd.stderr_text();
  EXPECT_EQ(receiver.count_for_webhook_id(msg_id), 3u);
  // The third attempt's success is recorded shortly after the receiver answered.
  nlohmann::json attempts;
  for (int i = 0; i < 200; ++i) {
    attempts = api.attempts_for_message(app, msg_id);
    if (attempts["data"].size() >= 3) break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_EQ(attempts["data"].size(), 3u) << attempts.dump();
  std::multiset<int> codes;
  for (const auto& attempt : attempts["data"]) codes.insert(attempt.value("responseStatusCode", 0));
  EXPECT_EQ(codes, (std::multiset<int>{200, 503, 503}));
  std::this_thread::sleep_for(500ms);  // no further attempt after the 200
  EXPECT_EQ(receiver.count_for_webhook_id(msg_id), 3u);
  EXPECT_EQ(receiver.processed_for_webhook_id(msg_id), 1u);  // counted after it answered
}

// A23-lite: kill -9 under load, restart on the same database; every 202'd message arrives.
TEST(DeliveryE2E, KillNineUnderLoadLosesNoAcknowledgedMessage) {  // A23
  constexpr int kMessages = 200;
  TestReceiver receiver;
  receiver.set_default(ReceiverBehavior::respond(200).after(5ms));
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a23");
  api.create_endpoint(app, receiver.url("/hook"));

  std::set<std::string> acknowledged;
  for (int i = 0; i < kMessages; ++i) {
    if (i == kMessages / 2) hookd.kill9();  // mid-way: some published, some in flight
    if (!hookd.running()) {
      ASSERT_TRUE(hookd.start()) << hookd.last_error();
    }
    const HttpReply reply = api.publish(app, "load.tick", {{"i", i}});
    if (reply.status == 202) acknowledged.insert(reply.json().value("id", ""));
  }
  ASSERT_GE(acknowledged.size(), static_cast<std::size_t>(kMessages - 1));
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  std::size_t missing = acknowledged.size();
  while (std::chrono::steady_clock::now() < deadline && missing > 0) {
    missing = 0;
    for (const std::string& id : acknowledged) missing += receiver.count_for_webhook_id(id) == 0;
    if (missing > 0) std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(missing, 0u) << hookd.stderr_text();
  std::size_t duplicates = 0;
  for (const std::string& id : acknowledged) duplicates += receiver.count_for_webhook_id(id) - 1;
  RecordProperty("duplicates", static_cast<int>(duplicates));
  std::cout << "[ A23 ] " << acknowledged.size() << " acknowledged, " << duplicates
            << " duplicate deliveries after kill -9\n";
}

}  // namespace
}  // namespace hookd::e2e
