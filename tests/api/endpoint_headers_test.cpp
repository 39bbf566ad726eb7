// Svix's endpoint headers routes (GET/PUT/PATCH .../endpoint/{id}/headers), the custom header
// checks, whsk_ (Ed25519) endpoint secrets, and the shared app + endpoint lookup of the
// endpoint sub-routes.
#include "api_fixture.hpp"

namespace hookd::api::testing {
namespace {

// base64 of 32 bytes 0x01..0x20 (an Ed25519 seed).
constexpr const char* kEd25519Seed = "whsk_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=";

class EndpointHeadersTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    app_ = make_app();
    ep_ = make_endpoint(app_, {{"headers", {{"X-Tenant", "t1"}, {"Authorization", "Bearer s3"}}}});
    path_ = "/api/v1/app/" + app_ + "/endpoint/" + ep_ + "/headers";
  }
  store::Headers stored() {
    auto app = store_->get_application(app_);
    auto ep = store_->get_endpoint(app->id, ep_);
    EXPECT_TRUE(ep.has_value());
    return ep ? ep->headers : store::Headers{};
  }
  std::string app_, ep_, path_;
};

TEST_F(EndpointHeadersTest, GetReturnsHeadersAndOnlyNamesOfSensitiveOnes) {
  auto got = call("GET", path_);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.json()["headers"], nlohmann::json({{"X-Tenant", "t1"}}));
  EXPECT_EQ(got.json()["sensitive"], nlohmann::json({"Authorization"}));
  EXPECT_EQ(got.body.find("s3"), std::string::npos) << "a sensitive value is never echoed";
}

TEST_F(EndpointHeadersTest, PutReplacesTheWholeSet) {
  auto put = call("PUT", path_, R"({"headers":{"X-Region":"eu"}})");
  ASSERT_EQ(put.status, 204) << put.body;
  EXPECT_EQ(stored(), (store::Headers{{"X-Region", "eu"}}));
  EXPECT_EQ(call("GET", path_).json()["headers"], nlohmann::json({{"X-Region", "eu"}}));
  EXPECT_EQ(call("PUT", path_, R"({"headers":{}})").status, 204);
  EXPECT_TRUE(stored().empty());
}

TEST_F(EndpointHeadersTest, PatchMergesRemovesNullsAndDeleteHeaders) {
  auto patch = call("PATCH", path_, R"({"headers":{"x-tenant":"t2","X-New":"n"}})");
  ASSERT_EQ(patch.status, 204) << patch.body;
  // Names are case-insensitive: x-tenant replaced X-Tenant.
  EXPECT_EQ(stored(),
            (store::Headers{{"Authorization", "Bearer s3"}, {"X-New", "n"}, {"x-tenant", "t2"}}));
  ASSERT_EQ(call("PATCH", path_, R"({"headers":{"X-New":null}})").status, 204);
  ASSERT_EQ(call("PATCH", path_, R"({"headers":{},"deleteHeaders":["authorization"]})").status,
            204);
  EXPECT_EQ(stored(), (store::Headers{{"x-tenant", "t2"}}));
}

TEST_F(EndpointHeadersTest, ReservedOrMalformedHeadersAreRefused) {
  for (const char* body :
       {R"({"headers":{"webhook-id":"x"}})", R"({"headers":{"Svix-Signature":"x"}})",
        R"({"headers":{"Content-Type":"text/plain"}})", R"({"headers":{"Host":"evil"}})",
        R"({"headers":{"Bad Name":"x"}})", R"({"headers":{"X-Ok":"a\r\nX-Injected: 1"}})",
        R"({"headers":{"X-Num":1}})", R"({"headers":"x"})", R"({})"}) {
    auto put = call("PUT", path_, body);
    EXPECT_EQ(put.status, 422) << body << " " << put.body;
  }
  auto patch = call("PATCH", path_, R"({"headers":{"User-Agent":"me"}})");
  EXPECT_EQ(patch.status, 422) << patch.body;
  EXPECT_NE(patch.json()["errors"].dump().find("headers.User-Agent"), std::string::npos);
  auto create = post("/api/v1/app/" + app_ + "/endpoint",
                     {{"url", "https://r.example/x"}, {"headers", {{"X-A", "1\n2"}}}});
  EXPECT_EQ(create.status, 422) << create.body;
  EXPECT_EQ(stored().size(), 2u) << "nothing changed";
}

TEST_F(EndpointHeadersTest, UnknownAppOrEndpointIs404OnEverySubRoute) {
  for (const char* sub : {"", "/headers", "/secret"}) {
    EXPECT_EQ(call("GET", "/api/v1/app/app_nope/endpoint/" + ep_ + sub).status, 404) << sub;
    auto missing = call("GET", "/api/v1/app/" + app_ + "/endpoint/ep_nope" + sub);
    EXPECT_EQ(missing.status, 404) << sub;
    EXPECT_NE(missing.body.find("ep_nope"), std::string::npos) << missing.body;
  }
  EXPECT_EQ(
      call("PUT", "/api/v1/app/" + app_ + "/endpoint/ep_nope/headers", R"({"headers":{}})").status,
      404);
  EXPECT_EQ(call("GET", "/api/v1/app/" + app_ + "/attempt/endpoint/ep_nope").status, 404);
  const auto msg = publish(app_);
  EXPECT_EQ(call("POST", "/api/v1/app/" + app_ + "/msg/" + msg["id"].get<std::string>() +
                             "/endpoint/ep_nope/resend")
                .status,
            404);
}

TEST_F(ApiTest, Ed25519WhskSecretIsAcceptedOnCreateAndRotate) {
  const auto app = make_app();
  const auto ep = make_endpoint(app, {{"secret", kEd25519Seed}});
  const std::string base = "/api/v1/app/" + app + "/endpoint/" + ep;
  EXPECT_EQ(call("GET", base + "/secret").json()["key"], kEd25519Seed);

  // Too short a seed, and a 64-byte seed + public key that do not belong together.
  for (const char* bad : {"whsk_AQIDBA==",
                          "whsk_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAAAAAAAAAAAAAAAAAAAAAAAA"
                          "AAAAAAAAAAAAAAAAAAAA=="}) {
    auto refused =
        post("/api/v1/app/" + app + "/endpoint", {{"url", "https://r.example/x"}, {"secret", bad}});
    EXPECT_EQ(refused.status, 422) << bad << " " << refused.body;
  }
  auto rotated = call("POST", base + "/secret/rotate",
                      R"({"key":"whsk_IB8eHRwbGhkYFxYVFBMSERAPDg0MCwoJCAcGBQQDAgE="})");
  EXPECT_EQ(rotated.status, 204) << rotated.body;
  EXPECT_EQ(call("GET", base + "/secret").json()["key"],
            "whsk_IB8eHRwbGhkYFxYVFBMSERAPDg0MCwoJCAcGBQQDAgE=");
  // A generated key keeps the kind.
  ASSERT_EQ(call("POST", base + "/secret/rotate").status, 204);
  const std::string generated = call("GET", base + "/secret").json()["key"];
  EXPECT_TRUE(generated.starts_with("whsk_")) << generated;
  // A given key may change the kind (both sign during the grace period: v1 and v1a).
  auto to_whsec =
      call("POST", base + "/secret/rotate", R"({"key":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"})");
  EXPECT_EQ(to_whsec.status, 204) << to_whsec.body;
  EXPECT_EQ(call("GET", base + "/secret").json()["key"], "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  const auto whsec_ep = make_endpoint(app);
  auto to_whsk = call("POST", "/api/v1/app/" + app + "/endpoint/" + whsec_ep + "/secret/rotate",
                      std::string(R"({"key":")") + kEd25519Seed + R"("})");
  EXPECT_EQ(to_whsk.status, 204) << to_whsk.body;
  auto stored = store_->get_endpoint(app, whsec_ep);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->secrets.current, kEd25519Seed);
  EXPECT_TRUE(stored->secrets.previous.value_or("").starts_with("whsec_"));
  // A malformed key of either kind is still refused.
  EXPECT_EQ(call("POST", base + "/secret/rotate", R"({"key":"whsk_AQIDBA=="})").status, 422);
}

}  // namespace
}  // namespace hookd::api::testing
