// Router and JSON body reading.
#include <gtest/gtest.h>

#include "api/json_body.hpp"
#include "api/router.hpp"

namespace hookd::api {
namespace {

Handler noop() {
  return [](Call&, Respond) {};
}

TEST(Router, CapturesDecodedParamsAndIgnoresTrailingSlash) {
  Router r;
  r.add("GET", "/api/v1/app/{app_id}/msg/{msg_id}", noop());
  auto m = r.match("GET", "/api/v1/app/my%20app/msg/msg_1/");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->params.at("app_id"), "my app");
  EXPECT_EQ(m->params.at("msg_id"), "msg_1");
}

TEST(Router, LiteralSegmentsWinOverParameters) {
  Router r;
  r.add("POST", "/api/v1/hookd/dlq/{delivery_id}", noop());
  r.add("POST", "/api/v1/hookd/dlq/replay", noop());
  auto m = r.match("POST", "/api/v1/hookd/dlq/replay");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->route->pattern, "/api/v1/hookd/dlq/replay");
}

TEST(Router, UnknownPathIs404AndWrongMethodIs405WithAllow) {
  Router r;
  r.add("GET", "/api/v1/app", noop());
  r.add("POST", "/api/v1/app", noop());
  auto missing = r.match("GET", "/api/v1/nothing");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().status, 404);
  auto wrong = r.match("DELETE", "/api/v1/app");
  ASSERT_FALSE(wrong.has_value());
  EXPECT_EQ(wrong.error().status, 405);
  ASSERT_EQ(wrong.error().headers.size(), 1u);
  EXPECT_EQ(wrong.error().headers[0].value, "GET, POST");
}

TEST(JsonBody, MalformedJsonNamesTheByteOffset) {
  auto r = parse_json_object(R"({"a": 1,, })", 64);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().status, 400);
  EXPECT_NE(r.error().detail.find("byte offset 9"), std::string::npos) << r.error().detail;
}

TEST(JsonBody, DepthLimitIsEnforcedBeforeParsing) {
  std::string deep(100, '[');
  deep += std::string(100, ']');
  auto r = parse_json_object(deep, 64);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().status, 400);
  EXPECT_NE(r.error().detail.find("deeper than the limit of 64"), std::string::npos);
  // Brackets inside strings do not count.
  EXPECT_TRUE(parse_json_object(R"({"s": "[[[[[[[[[[[[[["})", 3).has_value());
}

TEST(JsonBody, NonObjectsAndEmptyBodiesAreRefused) {
  EXPECT_EQ(parse_json_object("[1]", 64).error().status, 400);
  EXPECT_EQ(parse_json_object("", 64).error().status, 400);
}

TEST(JsonBody, RequiredTextRefusesBlankOnceAndKeepsOtherErrorsSingle) {
  auto j = nlohmann::json::parse(R"({"blank": " \t\n ", "empty": "", "ok": " fixed ", "num": 1})");
  Fields f(j);
  EXPECT_EQ(f.required_text("ok"), " fixed ");
  f.required_text("blank");
  f.required_text("empty");
  f.required_text("num");
  f.required_text("missing");
  ASSERT_EQ(f.errors().size(), 4u);  // one error per field, not "empty" and "blank" both
  EXPECT_EQ(f.errors()[0].message, "must not be blank");
  EXPECT_EQ(f.errors()[1].message, "must not be empty");
  EXPECT_EQ(f.errors()[3].message, "is required");
}

TEST(JsonBody, FieldsCollectEveryProblem) {
  auto j = nlohmann::json::parse(R"({"name": 5, "rate": -1, "list": ["a", ""]})");
  Fields f(j);
  f.required_string("name");
  f.integer("rate", 0, 10);
  f.string_list("list");
  f.required_string("missing");
  ASSERT_EQ(f.errors().size(), 4u);
  EXPECT_EQ(f.errors()[0].field, "name");
  EXPECT_EQ(f.errors()[2].field, "list[1]");
  EXPECT_EQ(f.errors()[3].message, "is required");
}

}  // namespace
}  // namespace hookd::api
