// A38 through the real daemon: the payload a caller publishes arrives at the endpoint
// byte-for-byte (key order, number forms, escapes, raw UTF-8, whitespace), the Standard
// Webhooks signature verifies over exactly those bytes, and the API returns them unchanged.
// The payload's size limit is the request body limit (413). The inbound forwarder passes
// the sender's body on byte-for-byte too.
#include <gtest/gtest.h>

#include <ctime>
#include <map>
#include <set>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/hookd_process.hpp"
#include "e2e/inbound_helpers.hpp"
#include "hookd/signing.hpp"
#include "support/payload_cases.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using hookd::testing::a38_payload_cases;
using hookd::testing::publish_body;
using hookd::testing::TestReceiver;

std::string message_path(const std::string& app) { return "/api/v1/app/" + app + "/msg"; }

TEST(PayloadBytesE2E, A38_TheEndpointReceivesThePayloadBytesSignedOverThem) {
  TestReceiver receiver;
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a38");
  const std::string ep = api.create_endpoint(app, receiver.url("/hook"));
  const std::string secret = api.endpoint_secret(app, ep);

  const auto cases = a38_payload_cases();
  std::map<std::string, std::string> payload_of;  // message id → payload text
  for (const auto& c : cases) {
    const auto published = hookd.post(message_path(app), publish_body(c.text));
    ASSERT_EQ(published.status, 202) << c.name << ": " << published.body;
    EXPECT_NE(published.body.find("\"payload\":" + c.text), std::string::npos) << published.body;
    payload_of[published.json().value("id", "")] = c.text;
  }
  ASSERT_EQ(payload_of.size(), cases.size());

  ASSERT_TRUE(receiver.wait_for_requests(cases.size(), 30s)) << hookd.stderr_text();
  auto verifier = Verifier::create(SchemeOptions{}, std::vector<std::string>{secret});
  ASSERT_TRUE(verifier) << verifier.error().message;
  std::set<std::string> seen;
  for (const auto& request : receiver.requests()) {
    const std::string id = request.header("webhook-id").value_or("");
    ASSERT_EQ(payload_of.count(id), 1u) << id;
    seen.insert(id);
    EXPECT_EQ(request.body, payload_of[id]);  // byte-for-byte
    EXPECT_EQ(request.header("Content-Length").value_or(""), std::to_string(payload_of[id].size()));
    const auto verified = verifier->verify(headers_of(request), request.body, std::time(nullptr));
    EXPECT_TRUE(verified) << id << ": " << verified.error().detail;
    // And the API returns the same bytes.
    const auto got = hookd.get(message_path(app) + "/" + id);
    ASSERT_EQ(got.status, 200) << got.body;
    EXPECT_NE(got.body.find("\"payload\":" + payload_of[id]), std::string::npos) << got.body;
  }
  EXPECT_EQ(seen.size(), cases.size());
}

TEST(PayloadBytesE2E, A38_ThePayloadLimitIsTheBodyLimitOnTheRawBytes) {
  HookdProcess hookd;
  hookd.set_env("HOOKD_SERVER_MAX_BODY_BYTES", "1KiB");
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("a38-limit");
  // Whitespace counts: it is part of the bytes kept. A body of exactly 1024 bytes is taken.
  auto padded_payload = [](std::size_t body_size) {
    const std::size_t shell = publish_body("{\"pad\":\"\"}").size();
    return "{\"pad\":\"\"" + std::string(body_size - shell, ' ') + "}";
  };
  const std::string fits = publish_body(padded_payload(1024));
  ASSERT_EQ(fits.size(), 1024u);
  const auto ok = hookd.post(message_path(app), fits);
  ASSERT_EQ(ok.status, 202) << ok.body;
  EXPECT_NE(ok.body.find("\"payload\":" + padded_payload(1024)), std::string::npos) << ok.body;

  const auto over = hookd.post(message_path(app), publish_body(padded_payload(1025)));
  EXPECT_EQ(over.status, 413) << over.body;
  EXPECT_EQ(api.get_json(message_path(app))["data"].size(), 1u);
}

TEST(PayloadBytesE2E, A38_TheInboundForwardCarriesTheSendersBytes) {
  TestReceiver app;
  app.start();
  HookdProcess hookd(
      inbound::config_with_sources(inbound::standard_source("shop", app.url("/hooks/shop"))));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const auto cases = a38_payload_cases();
  std::map<std::string, std::string> body_of;  // event id → body
  int n = 0;
  for (const auto& c : cases) {
    const std::string id = "evt_a38_" + std::to_string(n++);
    const auto reply = inbound::send_event(hookd, "shop", id, c.text);
    ASSERT_EQ(reply.status, 200) << c.name << ": " << reply.body;
    body_of[id] = c.text;
  }
  ASSERT_TRUE(app.wait_for_requests(cases.size(), 30s)) << hookd.stderr_text();
  auto verifier =
      Verifier::create(SchemeOptions{}, std::vector<std::string>{inbound::kForwardSecret});
  ASSERT_TRUE(verifier);
  for (const auto& forward : app.requests()) {
    const std::string id = forward.header("X-Hookd-Event-Id").value_or("");
    ASSERT_EQ(body_of.count(id), 1u) << id;
    EXPECT_EQ(forward.body, body_of[id]);  // byte-for-byte
    const auto verified = verifier->verify(headers_of(forward), forward.body, inbound::now_unix());
    EXPECT_TRUE(verified) << id << ": " << verified.error().detail;
  }
}

}  // namespace
}  // namespace hookd::e2e
