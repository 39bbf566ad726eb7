// Issue 17 item 3 through the real daemon: a delivery carries webhook-* and svix-* signature
// headers by default (the same id, timestamp and signature), and an endpoint's headerNaming
// ("svix" on create, "webhook" by PATCH) sends one family only. Each family verifies alone.
#include <gtest/gtest.h>

#include <ctime>
#include <string>
#include <vector>

#include "e2e/api_client.hpp"
#include "e2e/hookd_process.hpp"
#include "hookd/signing.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using hookd::testing::ReceivedRequest;
using hookd::testing::TestReceiver;

const std::vector<std::string> kWebhookNames = {"webhook-id", "webhook-timestamp",
                                                "webhook-signature"};
const std::vector<std::string> kSvixNames = {"svix-id", "svix-timestamp", "svix-signature"};

// The request's headers of one family only (names starting with `prefix`).
HttpHeaders family(const ReceivedRequest& request, std::string_view prefix) {
  HttpHeaders headers;
  for (const auto& [name, value] : request.headers) {
    if (name.starts_with(prefix)) headers.push_back({name, value});
  }
  return headers;
}

bool verifies(const HttpHeaders& headers, const ReceivedRequest& request,
              const std::string& secret) {
  auto verifier = Verifier::create(SchemeOptions{}, std::vector<std::string>{secret});
  return verifier && verifier->verify(headers, request.body, std::time(nullptr)).has_value();
}

const ReceivedRequest* on_path(const std::vector<ReceivedRequest>& requests,
                               std::string_view path) {
  for (const auto& r : requests) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

// Fails if the default sends one family only, if headerNaming is ignored on create or PATCH,
// or if the two families' values differ (checked: main's binary before this change fails it).
TEST(SvixHeadersE2E, DefaultDeliveryCarriesBothFamiliesAndHeaderNamingChoosesOne) {
  TestReceiver receiver;
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("svix-headers");
  const std::string both = api.create_endpoint(app, receiver.url("/both"));
  const std::string svix =
      api.create_endpoint(app, {{"url", receiver.url("/svix")}, {"headerNaming", "svix"}});
  const std::string webhook = api.create_endpoint(app, receiver.url("/webhook"));
  const HttpReply patched = hookd.request("PATCH", "/api/v1/app/" + app + "/endpoint/" + webhook,
                                          R"({"headerNaming":"webhook"})");
  ASSERT_EQ(patched.status, 200) << patched.body;
  ASSERT_EQ(patched.json().value("headerNaming", ""), "webhook");

  const HttpReply published = api.publish(app, "user.created", {{"user", "u_1"}});
  ASSERT_EQ(published.status, 202) << published.body;
  const std::string msg_id = published.json().value("id", "");
  ASSERT_TRUE(receiver.wait_for_requests(3, 20s)) << hookd.stderr_text();
  const auto requests = receiver.requests();

  const ReceivedRequest* to_both = on_path(requests, "/both");
  ASSERT_NE(to_both, nullptr);
  for (const auto& name : kWebhookNames) EXPECT_TRUE(to_both->header(name).has_value()) << name;
  for (const auto& name : kSvixNames) EXPECT_TRUE(to_both->header(name).has_value()) << name;
  EXPECT_EQ(to_both->header("svix-id").value_or(""), msg_id);
  EXPECT_EQ(to_both->header("webhook-id").value_or(""), msg_id);
  EXPECT_EQ(to_both->header("svix-timestamp"), to_both->header("webhook-timestamp"));
  EXPECT_EQ(to_both->header("svix-signature"), to_both->header("webhook-signature"));
  const std::string both_secret = api.endpoint_secret(app, both);
  EXPECT_TRUE(verifies(family(*to_both, "webhook-"), *to_both, both_secret));
  EXPECT_TRUE(verifies(family(*to_both, "svix-"), *to_both, both_secret));

  const ReceivedRequest* to_svix = on_path(requests, "/svix");
  ASSERT_NE(to_svix, nullptr);
  for (const auto& name : kWebhookNames) EXPECT_FALSE(to_svix->header(name).has_value()) << name;
  EXPECT_EQ(to_svix->header("svix-id").value_or(""), msg_id);
  EXPECT_TRUE(verifies(family(*to_svix, "svix-"), *to_svix, api.endpoint_secret(app, svix)));

  const ReceivedRequest* to_webhook = on_path(requests, "/webhook");
  ASSERT_NE(to_webhook, nullptr);
  for (const auto& name : kSvixNames) EXPECT_FALSE(to_webhook->header(name).has_value()) << name;
  EXPECT_EQ(to_webhook->header("webhook-id").value_or(""), msg_id);
  EXPECT_TRUE(
      verifies(family(*to_webhook, "webhook-"), *to_webhook, api.endpoint_secret(app, webhook)));
}

}  // namespace
}  // namespace hookd::e2e
