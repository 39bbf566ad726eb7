// Issue 17: listAttemptedMessages / listAttemptedDestinations (Svix shapes, status filter),
// expunge-content of a message (GET shows {"expired":true}, resend 400 missing_payload,
// audited) and of an attempt (response EXPUNGED), send-example (schema example, svix.ping,
// 400 without an example, one delivery to that endpoint only), transformation routes 501.
// Mutations checked: answering the payload as stored after an expunge (message_json without
// the expired branch) fails ExpungedPayloadIsGoneAndNotResendable; dropping only_endpoint in
// example_message fails SendExampleUsesTheSchemaExampleForThatEndpointOnly.
#include "api/api_fixture.hpp"

namespace hookd::api::testing {
namespace {

TEST_F(ApiTest, AttemptedMessagesAndDestinationsHaveSvixShapes) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  const auto msg = publish(app, {{"channels", {"crm"}}})["id"].get<std::string>();
  ASSERT_EQ(dead_letter_all(), 1);
  auto list = call("GET", "/api/v1/app/" + app + "/endpoint/" + ep + "/msg");
  ASSERT_EQ(list.status, 200) << list.body;
  auto data = list.json()["data"];
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(data[0]["id"], msg);
  EXPECT_EQ(data[0]["status"], 2);
  EXPECT_EQ(data[0]["statusText"], "fail");
  EXPECT_TRUE(data[0]["nextAttempt"].is_null());
  EXPECT_EQ(data[0]["payload"]["order"], 1);
  EXPECT_EQ(
      call("GET", "/api/v1/app/" + app + "/endpoint/" + ep + "/msg?status=0").json()["data"].size(),
      0u);
  EXPECT_EQ(call("GET", "/api/v1/app/" + app + "/endpoint/" + ep + "/msg?status=9").status, 422);
  auto dests = call("GET", "/api/v1/app/" + app + "/msg/" + msg + "/endpoint");
  ASSERT_EQ(dests.status, 200) << dests.body;
  ASSERT_EQ(dests.json()["data"].size(), 1u);
  EXPECT_EQ(dests.json()["data"][0]["id"], ep);
  EXPECT_EQ(dests.json()["data"][0]["status"], 2);
  EXPECT_EQ(call("GET", "/api/v1/app/" + app + "/msg/msg_nope/endpoint").status, 404);
}

TEST_F(ApiTest, ExpungedPayloadIsGoneAndNotResendable) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  const auto msg = publish(app, {{"payload", {{"card", "4111"}}}})["id"].get<std::string>();
  auto gone = call("DELETE", "/api/v1/app/" + app + "/msg/" + msg + "/content");
  ASSERT_EQ(gone.status, 204) << gone.body;
  auto got = call("GET", "/api/v1/app/" + app + "/msg/" + msg);
  EXPECT_EQ(got.json()["payload"], nlohmann::json({{"expired", true}}));
  EXPECT_EQ(got.body.find("4111"), std::string::npos);
  auto resend = post("/api/v1/app/" + app + "/msg/" + msg + "/endpoint/" + ep + "/resend", {});
  EXPECT_EQ(resend.status, 400) << resend.body;
  EXPECT_EQ(resend.json()["code"], "missing_payload");
  auto audit = call("GET", "/api/v1/hookd/audit?action=message.expunge_content").json()["data"];
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0]["targetId"], msg);
  EXPECT_EQ(audit[0]["actor"], "alice");
  EXPECT_EQ(call("DELETE", "/api/v1/app/" + app + "/msg/msg_nope/content").status, 404);
}

TEST_F(ApiTest, ExpungedAttemptResponse) {
  const auto app = make_app();
  make_endpoint(app);
  const auto msg = publish(app)["id"].get<std::string>();
  ASSERT_EQ(dead_letter_all(), 1);
  auto attempts = call("GET", "/api/v1/app/" + app + "/attempt/msg/" + msg).json()["data"];
  ASSERT_EQ(attempts.size(), 1u);
  const auto id = attempts[0]["id"].get<std::string>();
  const auto path = "/api/v1/app/" + app + "/msg/" + msg + "/attempt/" + id;
  ASSERT_EQ(call("DELETE", path + "/content").status, 204);
  EXPECT_EQ(call("GET", path).json()["response"], "EXPUNGED");
  EXPECT_EQ(
      call("DELETE", "/api/v1/app/" + app + "/msg/" + msg + "/attempt/atmpt_x/content").status,
      404);
}

TEST_F(ApiTest, SendExampleUsesTheSchemaExampleForThatEndpointOnly) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  const auto other = make_endpoint(app);
  ASSERT_EQ(
      post("/api/v1/event-type", {{"name", "order.paid"},
                                  {"description", "paid"},
                                  {"schemas", {{"1", {{"examples", {{{"n", 1}}, {{"n", 2}}}}}}}}})
          .status,
      201);
  auto sent = post("/api/v1/app/" + app + "/endpoint/" + ep + "/send-example",
                   {{"eventType", "order.paid"}, {"exampleIndex", 1}});
  ASSERT_EQ(sent.status, 200) << sent.body;
  EXPECT_EQ(sent.json()["payload"], nlohmann::json({{"n", 2}}));
  auto deliveries = store_->list_deliveries_for_message(sent.json()["id"]).value();
  ASSERT_EQ(deliveries.size(), 1u);
  EXPECT_EQ(deliveries[0].endpoint_id, ep);
  EXPECT_NE(deliveries[0].endpoint_id, other);
  auto ping = post("/api/v1/app/" + app + "/endpoint/" + ep + "/send-example",
                   {{"eventType", "svix.ping"}});
  ASSERT_EQ(ping.status, 200) << ping.body;
  EXPECT_EQ(ping.json()["payload"], nlohmann::json({{"success", true}}));
  ASSERT_EQ(post("/api/v1/event-type", {{"name", "bare"}, {"description", "no example"}}).status,
            201);
  auto none =
      post("/api/v1/app/" + app + "/endpoint/" + ep + "/send-example", {{"eventType", "bare"}});
  EXPECT_EQ(none.status, 400);
  EXPECT_EQ(none.json()["code"], "invalid_scheme");
  EXPECT_EQ(post("/api/v1/app/" + app + "/endpoint/" + ep + "/send-example",
                 {{"eventType", "unknown.type"}})
                .status,
            404);
}

TEST_F(ApiTest, TransformationsAreNotImplemented) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  auto get = call("GET", "/api/v1/app/" + app + "/endpoint/" + ep + "/transformation");
  EXPECT_EQ(get.status, 501);
  EXPECT_EQ(get.json()["code"], "not_implemented");
  EXPECT_EQ(
      call("PATCH", "/api/v1/app/" + app + "/endpoint/" + ep + "/transformation", R"({"code":"x"})")
          .status,
      501);
}

}  // namespace
}  // namespace hookd::api::testing
