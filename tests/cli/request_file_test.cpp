// Unit tests for the captured-request file parser behind `hookd verify`.
#include "cli/request_file.hpp"

#include <gtest/gtest.h>

namespace hookd::cli {
namespace {

TEST(RequestFile, KeepsHeadersInOrderAndTheBodyExactly) {
  const auto request = parse_request_file(
      R"({"headers": {"webhook-id": "msg_1", "X-Multi": ["a", "b"]},
          "body": "{\"k\": 1}\r\n"})");
  ASSERT_TRUE(request) << request.error().message;
  ASSERT_EQ(request->headers.size(), 3u);
  EXPECT_EQ(request->headers[0].name, "webhook-id");
  EXPECT_EQ(request->headers[1].value, "a");
  EXPECT_EQ(request->headers[2].value, "b");
  EXPECT_EQ(request->body, "{\"k\": 1}\r\n");
}

TEST(RequestFile, DecodesABase64Body) {
  const auto padded = parse_request_file(R"({"headers": {}, "body_base64": "YQBi/w=="})");
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->body, std::string("a\0b\xff", 4));
  const auto unpadded = parse_request_file(R"({"headers": {}, "body_base64": "YQBi_w"})");
  ASSERT_TRUE(unpadded);
  EXPECT_EQ(unpadded->body, std::string("a\0b\xff", 4));
}

TEST(RequestFile, AcceptsAnEmptyBody) {
  const auto request = parse_request_file(R"({"headers": {}, "body": ""})");
  ASSERT_TRUE(request);
  EXPECT_EQ(request->body, "");
}

TEST(RequestFile, RejectsMalformedInput) {
  for (const char* text : {
           "",
           "{",
           "[1]",
           R"({"body": ""})",
           R"({"headers": [], "body": ""})",
           R"({"headers": {"a": 1}, "body": ""})",
           R"({"headers": {"a": ["x", 2]}, "body": ""})",
           R"({"headers": {}})",
           R"({"headers": {}, "body": {"parsed": true}})",
           R"({"headers": {}, "body": "", "body_base64": ""})",
           R"({"headers": {}, "body_base64": "a*=="})",
           R"({"headers": {}, "body_base64": "YQBiw"})",
       }) {
    const auto request = parse_request_file(text);
    EXPECT_FALSE(request) << text;
    if (!request) {
      EXPECT_EQ(request.error().code, ErrorCode::kInvalidArgument);
    }
  }
}

}  // namespace
}  // namespace hookd::cli
