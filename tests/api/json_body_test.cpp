// parse_json_object: every malformed body is a 400 with a reason, never an exception (A33).
// The number-overflow case was found by the API fuzz target (tests/fuzz).
#include <gtest/gtest.h>

#include "api/json_body.hpp"

namespace hookd::api {
namespace {

TEST(JsonBody, A33_NumberOverflowIsABadRequestNotAnInternalError) {
  auto parsed = parse_json_object(R"({"eventType":1e999})", 64);
  ASSERT_FALSE(parsed.has_value());
  EXPECT_EQ(parsed.error().status, 400);
  EXPECT_NE(parsed.error().detail.find("Malformed JSON"), std::string::npos);
}

TEST(JsonBody, A33_SyntaxErrorNamesTheByteOffset) {
  auto parsed = parse_json_object(R"({"a":})", 64);
  ASSERT_FALSE(parsed.has_value());
  EXPECT_EQ(parsed.error().status, 400);
  EXPECT_NE(parsed.error().detail.find("byte offset"), std::string::npos);
}

TEST(JsonBody, A33_TooDeepNestingIsRefusedBeforeParsing) {
  auto parsed = parse_json_object(std::string(100, '[') + std::string(100, ']'), 64);
  ASSERT_FALSE(parsed.has_value());
  EXPECT_NE(parsed.error().detail.find("deeper than the limit of 64"), std::string::npos);
}

TEST(JsonBody, AnObjectIsAccepted) {
  auto parsed = parse_json_object(R"({"a":[1,2,{"b":null}]})", 64);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_TRUE(parsed->contains("a"));
}

}  // namespace
}  // namespace hookd::api
