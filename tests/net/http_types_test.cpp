// Tests for the HTTP value types: case-insensitive headers, target splitting,
// percent-decoding, problem+json bodies.
#include "net/http_types.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace hookd::net {
namespace {

TEST(HttpHeadersTest, LookupIgnoresCaseAndKeepsOrderAndRawValues) {
  HttpHeaders headers;
  headers.add("Webhook-Signature", "v1,abc= ");
  headers.add("X-Multi", "one");
  headers.add("x-multi", "two");
  EXPECT_EQ(headers.get("webhook-signature"), "v1,abc= ");
  EXPECT_EQ(headers.get_all("X-MULTI"), (std::vector<std::string_view>{"one", "two"}));
  EXPECT_FALSE(headers.get("missing"));
  headers.set("X-Multi", "three");
  EXPECT_EQ(headers.get_all("x-multi"), (std::vector<std::string_view>{"three"}));
  headers.remove("WEBHOOK-signature");
  EXPECT_FALSE(headers.contains("webhook-signature"));
}

TEST(HttpRequestTest, SplitsTargetAndDecodesQueryParameters) {
  HttpRequest request;
  request.target = "/api/v1/app/a%2Fb/msg?limit=10&name=a+b%21&flag&empty=";
  EXPECT_EQ(request.path(), "/api/v1/app/a%2Fb/msg");
  EXPECT_EQ(request.query(), "limit=10&name=a+b%21&flag&empty=");
  EXPECT_EQ(request.query_param("limit"), "10");
  EXPECT_EQ(request.query_param("name"), "a b!");
  EXPECT_EQ(request.query_param("flag"), "");
  EXPECT_EQ(request.query_param("empty"), "");
  EXPECT_FALSE(request.query_param("missing"));
  request.target = "/plain";
  EXPECT_EQ(request.path(), "/plain");
  EXPECT_EQ(request.query(), "");
}

TEST(PercentDecodeTest, DecodesEscapesAndRejectsMalformedOnes) {
  EXPECT_EQ(percent_decode("a%2Fb%20c"), "a/b c");
  EXPECT_EQ(percent_decode("a+b"), "a+b");
  EXPECT_EQ(percent_decode("a+b", true), "a b");
  EXPECT_EQ(percent_decode("%e2%82%AC"), "\xe2\x82\xac");
  EXPECT_FALSE(percent_decode("%"));
  EXPECT_FALSE(percent_decode("%4"));
  EXPECT_FALSE(percent_decode("%zz"));
}

TEST(ProblemResponseTest, IsProblemJsonWithTypeTitleStatusDetail) {
  auto response = problem_response(413, "body \"too\" big\n");
  EXPECT_EQ(response.status, 413);
  EXPECT_EQ(response.headers.get("content-type"), "application/problem+json");
  auto json = nlohmann::json::parse(response.body);
  EXPECT_EQ(json["type"], "about:blank");
  EXPECT_EQ(json["title"], "Payload Too Large");
  EXPECT_EQ(json["status"], 413);
  EXPECT_EQ(json["detail"], "body \"too\" big\n");
  auto typed = problem_response(409, "x", "https://hookd.dev/problems/outcome-unknown", "Unknown");
  EXPECT_EQ(nlohmann::json::parse(typed.body)["title"], "Unknown");
}

}  // namespace
}  // namespace hookd::net
