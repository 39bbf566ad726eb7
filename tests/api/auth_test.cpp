// A34: API calls without a valid token are refused with 401 (compared in constant time).
#include "api/auth.hpp"
#include "api_fixture.hpp"

namespace hookd::api::testing {
namespace {

TEST(TokenAuth, AcceptsOnlyConfiguredBearerTokens) {
  TokenAuth auth({{"alice", "secret-a"}, {"bob", "secret-b"}});
  EXPECT_EQ(auth.authenticate("Bearer secret-a"), "alice");
  EXPECT_EQ(auth.authenticate("bearer secret-b"), "bob");
  EXPECT_FALSE(auth.authenticate("Bearer secret-").has_value());
  EXPECT_FALSE(auth.authenticate("Bearer secret-a ").has_value());
  EXPECT_FALSE(auth.authenticate("Basic secret-a").has_value());
  EXPECT_FALSE(auth.authenticate("secret-a").has_value());
  EXPECT_FALSE(auth.authenticate(std::nullopt).has_value());
}

TEST(TokenAuth, NoTokensConfiguredRefusesEverything) {
  TokenAuth auth({});
  EXPECT_FALSE(auth.authenticate("Bearer ").has_value());
  EXPECT_FALSE(auth.authenticate("Bearer anything").has_value());
}

TEST_F(ApiTest, A34_MissingOrWrongTokenIs401WithWwwAuthenticate) {
  auto missing = call("GET", "/api/v1/app", "", {}, nullptr);
  EXPECT_EQ(missing.status, 401);
  EXPECT_EQ(missing.header("WWW-Authenticate"), "Bearer");
  EXPECT_EQ(missing.header("Content-Type"), "application/problem+json");
  EXPECT_EQ(missing.json()["status"], 401);
  EXPECT_EQ(missing.json()["code"], "unauthorized");

  auto wrong = call("GET", "/api/v1/app", "", {}, "tok_alice_0123456789abcdeX");
  EXPECT_EQ(wrong.status, 401);
  auto right = call("GET", "/api/v1/app");
  EXPECT_EQ(right.status, 200);
  EXPECT_EQ(registry_.counter("hookd_api_unauthorized_total", "").get().value(), 2u);
}

TEST_F(ApiTest, A34_EveryRouteButHealthNeedsTheToken) {
  for (const auto& [method, path] :
       std::vector<std::pair<std::string, std::string>>{{"POST", "/api/v1/app"},
                                                        {"GET", "/api/v1/app/app_x/endpoint"},
                                                        {"POST", "/api/v1/app/app_x/msg"},
                                                        {"GET", "/api/v1/hookd/dlq"},
                                                        {"POST", "/api/v1/hookd/dlq/replay"},
                                                        {"GET", "/api/v1/hookd/audit"}}) {
    EXPECT_EQ(call(method, path, "{}", {}, nullptr).status, 401) << method << " " << path;
  }
  auto health = call("GET", "/api/v1/health", "", {}, nullptr);
  EXPECT_EQ(health.status, 204);
}

TEST_F(ApiTest, UnknownRouteIs404AndWrongMethod405) {
  auto missing = call("GET", "/api/v1/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.header("Content-Type"), "application/problem+json");
  auto wrong = call("DELETE", "/api/v1/app");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_EQ(wrong.header("Allow"), "GET, POST");
}

TEST_F(ApiTest, StoppedApiAnswers503) {
  api_->stop();
  auto a = call("GET", "/api/v1/app");
  EXPECT_EQ(a.status, 503);
  EXPECT_EQ(a.header("Retry-After"), "1");
}

}  // namespace
}  // namespace hookd::api::testing
