// A30: every state-changing action a person takes through the API leaves one audit entry —
// who (the token's name), when, why (the optional X-Hookd-Reason header or `reason` field),
// before/after — and no entry ever holds a secret.
#include "api_fixture.hpp"

namespace hookd::api::testing {
namespace {

class AuditTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    app_ = make_app();
    ep_ = make_endpoint(app_, {{"headers", {{"X-Tenant", "t1"}, {"Authorization", "Bearer s3"}}}});
    base_ = "/api/v1/app/" + app_ + "/endpoint/" + ep_;
  }
  // The audit entries with this action (newest first).
  nlohmann::json entries(const std::string& action) {
    auto a = call("GET", "/api/v1/hookd/audit?action=" + action);
    EXPECT_EQ(a.status, 200) << a.body;
    return a.json()["data"];
  }
  // The one entry with this action (fails the test when there is not exactly one).
  nlohmann::json only(const std::string& action) {
    auto all = entries(action);
    EXPECT_EQ(all.size(), 1u) << action << ": " << all.dump();
    return all.empty() ? nlohmann::json::object() : all[0];
  }
  std::string secret() { return call("GET", base_ + "/secret").json().value("key", ""); }

  std::string app_, ep_, base_;
};

TEST_F(AuditTest, A30_RecoverIsAuditedWithHowManyWentBack) {
  publish(app_);
  publish(app_);
  ASSERT_EQ(dead_letter_all(), 2);
  auto r = post(base_ + "/recover", {{"since", "2020-01-01T00:00:00Z"}},
                {{"X-Hookd-Reason", "receiver fixed"}});
  ASSERT_EQ(r.status, 202) << r.body;
  auto e = only("endpoint.recover");
  EXPECT_EQ(e["actor"], "alice");
  EXPECT_EQ(e["targetType"], "endpoint");
  EXPECT_EQ(e["targetId"], ep_);
  EXPECT_EQ(e["reason"], "receiver fixed");
  EXPECT_EQ(e["before"]["status"], "dead");
  EXPECT_EQ(e["after"]["status"], "pending");
  EXPECT_EQ(e["after"]["recovered"], 2);
}

TEST_F(AuditTest, A30_ResendIsAuditedWithTheNewDelivery) {
  const std::string msg = publish(app_)["id"];
  auto r = call("POST", "/api/v1/app/" + app_ + "/msg/" + msg + "/endpoint/" + ep_ + "/resend", "",
                {{"X-Hookd-Reason", "customer asked"}}, "tok_bob_fedcba9876543210");
  ASSERT_EQ(r.status, 202) << r.body;
  auto e = only("message.resend");
  EXPECT_EQ(e["actor"], "bob") << "the token's name";
  EXPECT_EQ(e["targetType"], "message");
  EXPECT_EQ(e["targetId"], msg);
  EXPECT_EQ(e["reason"], "customer asked");
  EXPECT_TRUE(e["before"].is_null());
  EXPECT_EQ(e["after"]["endpoint_id"], ep_);
  EXPECT_EQ(e["after"]["status"], "pending");
  const std::string delivery = e["after"].value("delivery", "");
  ASSERT_FALSE(delivery.empty()) << e.dump();
  EXPECT_TRUE(store_->get_delivery(delivery).has_value());
}

TEST_F(AuditTest, A30_SecretRotationIsAuditedWithoutAnySecret) {
  const std::string old_key = secret();
  const std::string given = "whsec_bmV3LXNlY3JldC1rZXktZm9yLWF1ZGl0LXRlc3Q=";
  auto r = post(base_ + "/secret/rotate", {{"key", given}, {"reason", "key leaked"}});
  ASSERT_EQ(r.status, 204) << r.body;
  ASSERT_EQ(secret(), given);
  auto unnamed = post(base_ + "/secret/rotate", nlohmann::json::object());  // generated key
  ASSERT_EQ(unnamed.status, 204) << unnamed.body;
  const std::string generated = secret();

  auto all = entries("endpoint.rotate_secret");
  ASSERT_EQ(all.size(), 2u) << all.dump();
  EXPECT_EQ(all[1]["actor"], "alice");
  EXPECT_EQ(all[1]["targetId"], ep_);
  EXPECT_EQ(all[1]["reason"], "key leaked");
  EXPECT_EQ(all[1]["after"]["previousKeyValidForMs"], 24 * 3'600'000) << "the default grace";
  const std::string text = call("GET", "/api/v1/hookd/audit?target_id=" + ep_).body;
  for (const auto& key : {old_key, given, generated}) {
    ASSERT_FALSE(key.empty());
    EXPECT_EQ(text.find(key), std::string::npos) << "a secret in the audit log";
    EXPECT_EQ(text.find(key.substr(key.find('_') + 1, 16)), std::string::npos)
        << "part of a secret in the audit log";
  }
}

TEST_F(AuditTest, A30_DeletingAnEndpointIsAuditedWithWhatItWas) {
  ASSERT_EQ(call("DELETE", base_, "", {{"X-Hookd-Reason", "customer left"}}).status, 204);
  auto e = only("endpoint.delete");
  EXPECT_EQ(e["actor"], "alice");
  EXPECT_EQ(e["targetId"], ep_);
  EXPECT_EQ(e["reason"], "customer left");
  EXPECT_EQ(e["before"]["url"], "https://receiver.example/hook");
  EXPECT_EQ(e["before"]["headers"], nlohmann::json({"Authorization", "X-Tenant"}))
      << "header names only";
  EXPECT_TRUE(e["after"].is_null());
  EXPECT_EQ(e.dump().find("s3"), std::string::npos) << "no header value";
}

TEST_F(AuditTest, A30_DeletingAnApplicationIsAudited) {
  ASSERT_EQ(call("DELETE", "/api/v1/app/" + app_).status, 204);
  auto e = only("application.delete");
  EXPECT_EQ(e["actor"], "alice");
  EXPECT_EQ(e["targetType"], "application");
  EXPECT_EQ(e["targetId"], app_);
  EXPECT_EQ(e["before"]["name"], "Shop");
  EXPECT_TRUE(e["after"].is_null());
}

TEST_F(AuditTest, A30_PatchingAnEndpointIsAuditedWithTheChangedFieldsOnly) {
  auto r = call("PATCH", base_, R"({"url":"https://receiver.example/v2","description":"new"})",
                {{"X-Hookd-Reason", "moved"}});
  ASSERT_EQ(r.status, 200) << r.body;
  auto e = only("endpoint.update");
  EXPECT_EQ(e["actor"], "alice");
  EXPECT_EQ(e["targetId"], ep_);
  EXPECT_EQ(e["reason"], "moved");
  EXPECT_EQ(e["before"],
            nlohmann::json({{"url", "https://receiver.example/hook"}, {"description", ""}}));
  EXPECT_EQ(e["after"],
            nlohmann::json({{"url", "https://receiver.example/v2"}, {"description", "new"}}));

  // Only `disabled` changes: that is the endpoint.disable entry, not a second update entry.
  ASSERT_EQ(call("PATCH", base_, R"({"disabled":true})").status, 200);
  EXPECT_EQ(entries("endpoint.update").size(), 1u);
  EXPECT_EQ(entries("endpoint.disable").size(), 1u);
  // Nothing changes: no entry.
  ASSERT_EQ(call("PATCH", base_, R"({"description":"new"})").status, 200);
  EXPECT_EQ(entries("endpoint.update").size(), 1u);
}

TEST_F(AuditTest, A30_DisablingTwiceIsOneTransitionAndOneEntry) {
  const std::string route = "/api/v1/hookd/app/" + app_ + "/endpoint/" + ep_ + "/disable";
  ASSERT_EQ(post(route, {{"reason", "first"}}).status, 200);
  auto again = post(route, {{"reason", "second"}});
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.json()["disabledReason"], "first") << "no transition: the endpoint stays as is";
  auto e = only("endpoint.disable");
  EXPECT_EQ(e["reason"], "first");
  EXPECT_EQ(e["before"], nlohmann::json({{"disabled", false}, {"disabledReason", nullptr}}));
  EXPECT_EQ(e["after"], nlohmann::json({{"disabled", true}, {"disabledReason", "first"}}));
}

TEST_F(AuditTest, A30_HeaderChangesAreAuditedByNameOnly) {
  ASSERT_EQ(
      call("PATCH", base_ + "/headers", R"({"headers":{"Authorization":"Bearer s4"}})").status,
      204);
  ASSERT_EQ(call("PUT", base_ + "/headers", R"({"headers":{"X-Region":"eu"}})").status, 204);
  auto all = entries("endpoint.update");
  ASSERT_EQ(all.size(), 2u) << all.dump();
  EXPECT_EQ(all[0]["before"]["headers"], nlohmann::json({"Authorization", "X-Tenant"}));
  EXPECT_EQ(all[0]["after"]["headers"], nlohmann::json({"X-Region"}));
  EXPECT_EQ(all[1]["before"]["headers"], all[1]["after"]["headers"])
      << "a changed value keeps the names";
  EXPECT_TRUE(all[1]["after"].contains("headersChanged")) << all[1].dump();
  const std::string text = call("GET", "/api/v1/hookd/audit?target_id=" + ep_).body;
  EXPECT_EQ(text.find("s3"), std::string::npos);
  EXPECT_EQ(text.find("s4"), std::string::npos);
}

TEST_F(AuditTest, A30_ApplicationAndEndpointChangesAreAudited) {
  auto e = only("application.create");
  EXPECT_EQ(e["targetId"], app_);
  EXPECT_TRUE(e["before"].is_null());
  EXPECT_EQ(e["after"]["name"], "Shop");
  EXPECT_EQ(only("endpoint.create")["targetId"], ep_);
  EXPECT_EQ(only("endpoint.create").dump().find(secret()), std::string::npos);

  ASSERT_EQ(call("PATCH", "/api/v1/app/" + app_, R"({"name":"Shop 2"})").status, 200);
  ASSERT_EQ(call("PUT", "/api/v1/app/" + app_, R"({"name":"Shop 3"})").status, 200);
  auto updates = entries("application.update");
  ASSERT_EQ(updates.size(), 2u) << updates.dump();
  EXPECT_EQ(updates[1]["before"]["name"], "Shop");
  EXPECT_EQ(updates[1]["after"]["name"], "Shop 2");
  EXPECT_EQ(updates[0]["after"]["name"], "Shop 3");
  EXPECT_EQ(updates[0]["actor"], "alice");
}

TEST_F(AuditTest, A30_EventTypeChangesAreAudited) {
  ASSERT_EQ(post("/api/v1/event-type", {{"name", "order.paid"}}).status, 201);
  ASSERT_EQ(call("PATCH", "/api/v1/event-type/order.paid", R"({"description":"paid"})").status,
            200);
  ASSERT_EQ(call("DELETE", "/api/v1/event-type/order.paid").status, 204);  // archives
  ASSERT_EQ(call("DELETE", "/api/v1/event-type/order.paid?expunge=true").status, 204);
  EXPECT_EQ(only("event_type.create")["targetId"], "order.paid");
  auto updates = entries("event_type.update");
  ASSERT_EQ(updates.size(), 2u) << updates.dump();
  EXPECT_EQ(updates[1]["after"]["description"], "paid");
  EXPECT_EQ(updates[0]["after"]["archived"], true);
  EXPECT_EQ(only("event_type.delete")["before"]["name"], "order.paid");
}

}  // namespace
}  // namespace hookd::api::testing
