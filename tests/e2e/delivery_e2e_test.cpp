// Outbound delivery through the real daemon: API → store → dispatcher → receiver.
#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <map>
#include <set>
#include <thread>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/hookd_process.hpp"
#include "hookd/signing.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

// The request verifies with the endpoint's secret (Standard Webhooks) as the receiver got it.
void expect_signed_by(const hookd::testing::ReceivedRequest& request, const std::string& secret) {
  auto verifier = Verifier::create(SchemeOptions{}, std::vector<std::string>{secret});
  ASSERT_TRUE(verifier) << verifier.error().message;
  const auto verified = verifier->verify(headers_of(request), request.body, std::time(nullptr));
  EXPECT_TRUE(verified) << verified.error().detail;
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
  expect_signed_by(request, secret);
  EXPECT_EQ(nlohmann::json::parse(request.body).value("user", ""), "u_1");
}

TEST(DeliveryE2E, A01_RetriesTwo503sThenDelivers) {
  TestReceiver receiver;
  receiver.enqueue("/hook", ReceiverBehavior::respond(503));
  receiver.enqueue("/hook", ReceiverBehavior::respond(503));
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a01");
  const std::string ep = api.create_endpoint(app, receiver.url("/hook"));
  const HttpReply published = api.publish(app, "invoice.paid", {{"n", 1}});
  ASSERT_EQ(published.status, 202) << published.body;
  const std::string msg_id = published.json().value("id", "");

  ASSERT_TRUE(receiver.wait_for_requests(3, 30s)) << hookd.stderr_text();
  EXPECT_EQ(receiver.count_for_webhook_id(msg_id), 3u);
  // The third attempt's success is recorded shortly after the receiver answered.
  nlohmann::json attempts;
  eventually([&] {
    attempts = api.attempts_for_message(app, msg_id);
    return attempts["data"].size() >= 3;
  });
  ASSERT_EQ(attempts["data"].size(), 3u) << attempts.dump();
  std::multiset<int> codes;
  for (const auto& attempt : attempts["data"]) codes.insert(attempt.value("responseStatusCode", 0));
  EXPECT_EQ(codes, (std::multiset<int>{200, 503, 503}));
  // The 200 is final: as many requests as logged attempts (A09), and it was processed once.
  EXPECT_EQ(receiver.count_for_webhook_id(msg_id), 3u);
  EXPECT_EQ(receiver.processed_for_webhook_id(msg_id), 1u);  // counted after it answered
  // Every attempt, the retries too, is signed with the endpoint's secret.
  const std::string secret = api.endpoint_secret(app, ep);
  for (const auto& request : receiver.requests()) expect_signed_by(request, secret);
}

// Headers set through Svix's PUT/PATCH .../headers route are sent with every delivery.
TEST(DeliveryE2E, EndpointHeadersFromTheApiAreSentWithDeliveries) {
  TestReceiver receiver;
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("headers");
  const std::string ep = api.create_endpoint(app, receiver.url("/hook"));
  const std::string path = "/api/v1/app/" + app + "/endpoint/" + ep + "/headers";
  ASSERT_EQ(
      hookd.request("PUT", path, R"({"headers":{"X-Tenant":"acme","Authorization":"Bearer r"}})")
          .status,
      204);
  ASSERT_EQ(hookd.request("PATCH", path, R"({"headers":{"X-Region":"eu"}})").status, 204);
  const auto got = api.get_json(path);
  EXPECT_EQ(got["headers"], nlohmann::json({{"X-Region", "eu"}, {"X-Tenant", "acme"}}));
  EXPECT_EQ(got["sensitive"], nlohmann::json({"Authorization"}));
  ASSERT_EQ(api.publish(app, "user.created", {{"user", "u_2"}}).status, 202);

  ASSERT_TRUE(receiver.wait_for_requests(1, 20s)) << hookd.stderr_text();
  const auto request = receiver.requests().front();
  EXPECT_EQ(request.header("X-Tenant").value_or(""), "acme");
  EXPECT_EQ(request.header("X-Region").value_or(""), "eu");
  EXPECT_EQ(request.header("Authorization").value_or(""), "Bearer r");
}

// An endpoint created with a whsk_ secret gets Standard Webhooks v1a (Ed25519) signatures.
TEST(DeliveryE2E, WhskSecretSignsWithEd25519) {
  const std::string seed = "whsk_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=";
  TestReceiver receiver;
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("ed25519");
  const std::string ep =
      api.create_endpoint(app, nlohmann::json{{"url", receiver.url("/hook")}, {"secret", seed}});
  EXPECT_EQ(api.endpoint_secret(app, ep), seed);
  ASSERT_EQ(api.publish(app, "user.created", {{"user", "u_3"}}).status, 202);

  ASSERT_TRUE(receiver.wait_for_requests(1, 20s)) << hookd.stderr_text();
  const auto request = receiver.requests().front();
  EXPECT_TRUE(request.header("webhook-signature").value_or("").starts_with("v1a,"));
  SchemeOptions ed25519;
  ed25519.kind = SchemeKind::kStandardEd25519;
  auto verifier = Verifier::create(ed25519, std::vector<std::string>{seed});
  ASSERT_TRUE(verifier) << verifier.error().message;
  const auto verified = verifier->verify(headers_of(request), request.body, std::time(nullptr));
  EXPECT_TRUE(verified) << verified.error().detail;
}

}  // namespace
}  // namespace hookd::e2e
