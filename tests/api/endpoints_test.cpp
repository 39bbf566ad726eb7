// Endpoints: CRUD with Svix and hookd fields, secrets and rotation, URL checks (SSRF literal
// IPs refused at create time), recover, and audited enable/disable (A30).
#include "api_fixture.hpp"

namespace hookd::api::testing {
namespace {

TEST_F(ApiTest, EndpointCrudWithSvixAndHookdFields) {
  const auto app = make_app();
  auto created =
      post("/api/v1/app/" + app + "/endpoint",
           {{"url", "https://receiver.example/hook"},
            {"description", "main"},
            {"filterTypes", {"order.paid"}},
            {"channels", {"eu"}},
            {"rateLimit", 10},
            {"uid", "main"},
            {"headers", {{"X-Tenant", "t1"}}},
            {"fifo", true},
            {"retryPolicy", {{"maxAttempts", 3}, {"statusOverrides", {{"404", "retry"}}}}},
            {"timeoutMs", 5000}});
  ASSERT_EQ(created.status, 201) << created.body;
  auto ep = created.json();
  EXPECT_TRUE(ep["id"].get<std::string>().starts_with("ep_"));
  EXPECT_EQ(ep["filterTypes"], nlohmann::json({"order.paid"}));
  EXPECT_EQ(ep["rateLimit"], 10);
  EXPECT_EQ(ep["fifo"], true);
  EXPECT_EQ(ep["retryPolicy"]["maxAttempts"], 3);
  EXPECT_EQ(ep["timeoutMs"], 5000);
  EXPECT_FALSE(ep.contains("secret")) << "the secret is only served by /secret";

  const std::string base = "/api/v1/app/" + app + "/endpoint/";
  EXPECT_EQ(call("GET", base + "main").json()["id"], ep["id"]) << "uid works as endpoint_id";
  auto patched = call("PATCH", base + "main", R"({"description":"changed"})");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.json()["description"], "changed");
  EXPECT_EQ(patched.json()["fifo"], true) << "PATCH keeps absent fields";
  auto put = call("PUT", base + "main", R"({"url":"https://other.example/x"})");
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_EQ(put.json()["fifo"], false) << "PUT resets absent fields";
  EXPECT_EQ(put.json()["uid"], nullptr);
  const std::string id = ep["id"];
  EXPECT_EQ(call("GET", "/api/v1/app/" + app + "/endpoint").json()["data"].size(), 1u);
  EXPECT_EQ(call("DELETE", base + id).status, 204);
  EXPECT_EQ(call("GET", base + id).status, 404);
}

// Issue 17 item 6: Svix's PUT of an unknown uid creates the endpoint (201, with a fresh secret,
// audited as a create); a second PUT updates the same one; PATCH, an unknown `ep_` id and an
// invalid body stay errors and create nothing.
TEST_F(ApiTest, PutOfAnUnknownEndpointUidCreatesIt) {
  const auto app = make_app();
  const std::string base = "/api/v1/app/" + app + "/endpoint/";
  EXPECT_EQ(call("PATCH", base + "billing", R"({"url":"https://a.example/x"})").status, 404);
  EXPECT_EQ(call("PUT", base + "ep_2unknownunknownunknownunkno", R"({"url":"https://a.example/x"})")
                .status,
            404);
  EXPECT_EQ(call("PUT", base + "billing", R"({"url":"ftp://a.example/x"})").status, 422);
  EXPECT_EQ(call("GET", "/api/v1/app/" + app + "/endpoint").json()["data"].size(), 0u);

  auto created = call("PUT", base + "billing", R"({"url":"https://a.example/x","version":1})");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(created.json()["uid"], "billing");
  EXPECT_EQ(created.json()["url"], "https://a.example/x");
  const std::string id = created.json()["id"];
  EXPECT_TRUE(id.starts_with("ep_"));
  auto secret = call("GET", base + "billing/secret");
  ASSERT_EQ(secret.status, 200);
  EXPECT_TRUE(secret.json()["key"].get<std::string>().starts_with("whsec_"));

  auto again = call("PUT", base + "billing", R"({"url":"https://b.example/y","uid":"billing"})");
  ASSERT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.json()["id"], id);
  EXPECT_EQ(call("GET", "/api/v1/app/" + app + "/endpoint").json()["data"].size(), 1u);
  auto audit = call("GET", "/api/v1/hookd/audit?action=endpoint.create").json();
  ASSERT_EQ(audit["data"].size(), 1u) << audit.dump();
  EXPECT_EQ(audit["data"][0]["targetId"], id);
}

// Svix's uid pattern holds for endpoints as for applications; `ep_` is kept for ids (a PUT
// of an unknown `ep_…` is a 404, never an upsert).
TEST_F(ApiTest, EndpointUidsFollowSvixPattern) {
  const std::string path = "/api/v1/app/" + make_app() + "/endpoint";
  for (const char* uid : {"has space", "ep_lookalike", "", "a/b"}) {
    auto r = post(path, {{"url", "https://a.example/x"}, {"uid", uid}});
    EXPECT_EQ(r.status, 422) << uid;
    EXPECT_EQ(r.json()["errors"][0]["field"], "uid") << uid << r.body;
  }
  EXPECT_EQ(post(path, {{"url", "https://a.example/x"}, {"uid", "main-1.v2_x"}}).status, 201);
}

TEST_F(ApiTest, EndpointSecretIsGeneratedOrTakenAndRotates) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  const std::string base = "/api/v1/app/" + app + "/endpoint/" + ep;
  auto secret = call("GET", base + "/secret").json()["key"].get<std::string>();
  EXPECT_TRUE(secret.starts_with("whsec_"));
  EXPECT_EQ(secret.size(), 6u + 32u);  // 24 bytes of base64

  const std::string mine = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  auto given = make_endpoint(app, {{"secret", mine}});
  EXPECT_EQ(call("GET", "/api/v1/app/" + app + "/endpoint/" + given + "/secret").json()["key"],
            mine);
  auto bad =
      post("/api/v1/app/" + app + "/endpoint", {{"url", "https://a.example"}, {"secret", "short"}});
  EXPECT_EQ(bad.status, 422);

  EXPECT_EQ(post(base + "/secret/rotate", nlohmann::json::object()).status, 204);
  auto rotated = call("GET", base + "/secret").json()["key"].get<std::string>();
  EXPECT_NE(rotated, secret);
  EXPECT_EQ(post(base + "/secret/rotate", {{"key", mine}}).status, 204);
  EXPECT_EQ(call("GET", base + "/secret").json()["key"], mine);
  auto stored = store_->get_endpoint(app, ep);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->secrets.previous, rotated) << "the old key keeps signing for a while";
}

TEST_F(ApiTest, EndpointUrlsAreValidatedAndLiteralPrivateIpsRefused) {
  const auto app = make_app();
  const std::string path = "/api/v1/app/" + app + "/endpoint";
  for (const char* url : {"ftp://x.example/", "not a url", "https://", "http://user:pw@x.example/",
                          "http://127.0.0.1:8080/hook", "http://[::1]/hook", "http://10.0.0.5/",
                          "http://169.254.169.254/latest/meta-data"}) {
    auto r = post(path, {{"url", url}});
    EXPECT_EQ(r.status, 422) << url;
    EXPECT_EQ(r.json()["errors"][0]["field"], "url") << url;
  }
  auto refused = post(path, {{"url", "http://127.0.0.1:8080/hook"}});
  EXPECT_NE(refused.json()["message"].get<std::string>().find("loopback"), std::string::npos)
      << refused.body;
  EXPECT_EQ(post(path, {{"url", "https://hooks.example.com/x"}}).status, 201);
  EXPECT_EQ(post(path, {{"url", "http://8.8.8.8/x"}}).status, 201);

  options_.address_policy = *AddressPolicy::from_strings(std::vector<std::string>{"127.0.0.0/8"});
  start_api();
  EXPECT_EQ(post(path, {{"url", "http://127.0.0.1:8080/hook"}}).status, 201) << "allow-listed";
}

TEST_F(ApiTest, EndpointRetryPolicyIsValidated) {
  const auto app = make_app();
  auto bad =
      post("/api/v1/app/" + app + "/endpoint",
           {{"url", "https://a.example"},
            {"retryPolicy",
             {{"maxAttempts", 0}, {"bogus", 1}, {"statusOverrides", {{"4xx", "explode"}}}}}});
  ASSERT_EQ(bad.status, 422);
  std::set<std::string> fields;
  const auto problem = bad.json();
  for (const auto& e : problem["errors"]) fields.insert(e["field"].get<std::string>());
  EXPECT_TRUE(fields.contains("retryPolicy.maxAttempts")) << bad.body;
  EXPECT_TRUE(fields.contains("retryPolicy.bogus"));
  EXPECT_TRUE(fields.contains("retryPolicy.statusOverrides.4xx"));
}

TEST_F(ApiTest, A30_EndpointDisableAndEnableAreAuditedWithReason) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  const std::string base = "/api/v1/hookd/app/" + app + "/endpoint/" + ep;
  EXPECT_EQ(post(base + "/disable", nlohmann::json::object()).status, 422) << "reason required";
  auto disabled = post(base + "/disable", {{"reason", "receiver migrating"}});
  ASSERT_EQ(disabled.status, 200) << disabled.body;
  EXPECT_EQ(disabled.json()["disabled"], true);
  EXPECT_EQ(disabled.json()["disabledReason"], "receiver migrating");
  auto enabled = post(base + "/enable", {{"reason", "migration done"}});
  EXPECT_EQ(enabled.json()["disabled"], false);

  auto audit = call("GET", "/api/v1/hookd/audit?target_id=" + ep).json();
  ASSERT_EQ(audit["data"].size(), 3u) << audit.dump();
  const auto& newest = audit["data"][0];
  EXPECT_EQ(newest["action"], "endpoint.enable");
  EXPECT_EQ(newest["actor"], "alice");
  EXPECT_EQ(newest["reason"], "migration done");
  EXPECT_EQ(newest["before"]["disabled"], true);
  EXPECT_EQ(newest["after"]["disabled"], false);
  EXPECT_EQ(audit["data"][1]["action"], "endpoint.disable");
  EXPECT_EQ(audit["data"][2]["action"], "endpoint.create");
}

TEST_F(ApiTest, A30_DisablingThroughPatchIsAuditedToo) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  auto r = call("PATCH", "/api/v1/app/" + app + "/endpoint/" + ep, R"({"disabled":true})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["disabled"], true);
  auto audit = call("GET", "/api/v1/hookd/audit?action=endpoint.disable").json();
  ASSERT_EQ(audit["data"].size(), 1u);
  EXPECT_EQ(audit["data"][0]["actor"], "alice");
}

TEST_F(ApiTest, RecoverRequeuesDeadDeliveriesSince) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  publish(app);
  publish(app);
  ASSERT_EQ(dead_letter_all(), 2);
  const std::string base = "/api/v1/app/" + app + "/endpoint/" + ep + "/recover";
  EXPECT_EQ(post(base, nlohmann::json::object()).status, 422) << "since required";
  EXPECT_EQ(post(base, {{"since", "last tuesday"}}).status, 422);
  auto r = post(base, {{"since", "2020-01-01T00:00:00Z"}});
  ASSERT_EQ(r.status, 202) << r.body;
  EXPECT_EQ(r.json()["task"], "endpoint.recover");
  EXPECT_EQ(r.json()["recovered"], 2);
  EXPECT_EQ(store_->count_deliveries(store::DeliveryStatus::kPending).value_or(-1), 2);
}

TEST_F(ApiTest, RecoverWithUntilResendsOnlyFailuresBeforeIt) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  publish(app);
  ASSERT_EQ(dead_letter_all(), 1);
  const std::string base = "/api/v1/app/" + app + "/endpoint/" + ep + "/recover";
  // The failure lies after `until`: nothing to re-send.
  auto none = post(base, {{"since", "2020-01-01T00:00:00Z"}, {"until", "2021-01-01T00:00:00Z"}});
  ASSERT_EQ(none.status, 202) << none.body;
  EXPECT_EQ(none.json()["recovered"], 0);
  EXPECT_EQ(store_->count_deliveries(store::DeliveryStatus::kDead).value_or(-1), 1);
  EXPECT_EQ(
      post(base, {{"since", "2021-01-01T00:00:00Z"}, {"until", "2020-01-01T00:00:00Z"}}).status,
      422)
      << "until before since";
  EXPECT_EQ(post(base, {{"since", "2020-01-01T00:00:00Z"}, {"until", "soon"}}).status, 422);
  auto all = post(base, {{"since", "2020-01-01T00:00:00Z"}, {"until", "2999-01-01T00:00:00Z"}});
  ASSERT_EQ(all.status, 202) << all.body;
  EXPECT_EQ(all.json()["recovered"], 1);
  EXPECT_EQ(store_->count_deliveries(store::DeliveryStatus::kPending).value_or(-1), 1);
}

}  // namespace
}  // namespace hookd::api::testing
