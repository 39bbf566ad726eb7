// The pure checks of a request's head (request_head.hpp): which prefixes can still become a
// request line, which never can, versions (RFC 9110 §2.5), field lines and Host values.
#include "net/request_head.hpp"

#include <gtest/gtest.h>

namespace hookd::net {
namespace {

using Verdict = RequestLineCheck::Verdict;

Verdict verdict(std::string_view bytes, std::size_t max_target = 8192) {
  return check_request_line(bytes, max_target).verdict;
}

TEST(RequestHeadTest, EveryPrefixOfAValidLineIsIncompleteAndTheLineComplete) {
  const std::string line = "POST /api/v1/app?x=1 HTTP/1.1\r\n";
  for (std::size_t n = 0; n < line.size(); ++n) {
    EXPECT_EQ(verdict(line.substr(0, n)), Verdict::kIncomplete) << n;
  }
  auto check = check_request_line(line + "Host: x\r\n", 8192);
  EXPECT_EQ(check.verdict, Verdict::kComplete);
  EXPECT_EQ(check.length, line.size());
  EXPECT_FALSE(check.minor_digit_at.has_value());
  EXPECT_EQ(verdict("GET / HTTP/1.0\r\n"), Verdict::kComplete);
}

TEST(RequestHeadTest, BytesThatCanNeverBeARequestLineAreMalformedAtOnce) {
  for (std::string_view bad : {
           std::string_view("\x16\x03\x01\x02\x00", 5),  // a TLS hello
           std::string_view("\0\0\0", 3),
           std::string_view(" GET / HTTP/1.1"),
           std::string_view("GET\t/"),
           std::string_view("GET  /"),
           std::string_view("GET /a\x01"),
           std::string_view("GET / HTTP/1.1\n"),  // bare LF
           std::string_view("GET / HTTP/1.1\rX"),
           std::string_view("GET / http/1.1"),
           std::string_view("GET / HTTP/1.10"),
           std::string_view("GET / HTTP/x"),
           std::string_view("GET / HTTP/1.1 \r\n"),
           std::string_view("GET /\r\n"),
           std::string_view("GARBAGE\r\n\r\n"),
       }) {
    EXPECT_EQ(verdict(bad), Verdict::kMalformed) << bad;
  }
  EXPECT_EQ(verdict(std::string(kMaxMethodBytes, 'M')), Verdict::kIncomplete);
  EXPECT_EQ(verdict(std::string(kMaxMethodBytes + 1, 'M')), Verdict::kMalformed);
}

TEST(RequestHeadTest, ALaterMinorVersionIsReadAsOnePointOne) {
  const std::string line = "GET / HTTP/1.7\r\n";
  auto check = check_request_line(line, 8192);
  EXPECT_EQ(check.verdict, Verdict::kComplete);
  ASSERT_TRUE(check.minor_digit_at.has_value());
  EXPECT_EQ(line[*check.minor_digit_at], '7');
  EXPECT_TRUE(check_request_line("GET / HTTP/1.9\r\n", 8192).minor_digit_at.has_value());
}

TEST(RequestHeadTest, AnotherMajorVersionIsNotSupported) {
  for (std::string_view line :
       {"GET / HTTP/2.0\r\n", "GET / HTTP/0.9\r\n", "GET / HTTP/9.9\r\n", "PRI * HTTP/2.0\r\n"}) {
    auto check = check_request_line(line, 8192);
    EXPECT_EQ(check.verdict, Verdict::kVersionNotSupported) << line;
    EXPECT_NE(check.reason.find("HTTP/1.1"), std::string::npos);
  }
}

TEST(RequestHeadTest, ATargetPastTheLimitIsRefusedBeforeTheLineEnds) {
  EXPECT_EQ(verdict("GET /" + std::string(20, 'a'), 21), Verdict::kIncomplete);
  EXPECT_EQ(verdict("GET /" + std::string(21, 'a'), 21), Verdict::kTargetTooLong);
  EXPECT_EQ(verdict("GET /" + std::string(20, 'a') + " HTTP/1.1\r\n", 21), Verdict::kComplete);
}

TEST(RequestHeadTest, FieldLines) {
  EXPECT_FALSE(bad_field_line("Host: x").has_value());
  EXPECT_FALSE(bad_field_line("X-Empty:").has_value());
  EXPECT_FALSE(bad_field_line(" folded").has_value());  // obs-fold: Beast decides
  EXPECT_TRUE(bad_field_line("Bad Header: x").has_value());
  EXPECT_TRUE(bad_field_line(": x").has_value());
  EXPECT_TRUE(bad_field_line("no colon").has_value());
  EXPECT_TRUE(bad_field_line(std::string_view("\x16\x03\x01", 3)).has_value());
}

TEST(RequestHeadTest, HostValues) {
  for (std::string_view good : {"", "example.com", "example.com:8071", "127.0.0.1:1", "[::1]",
                                "[::1]:8071", "xn--bcher-kva.example", "a_b-c.d~e"}) {
    EXPECT_TRUE(valid_host_value(good)) << good;
  }
  for (std::string_view bad : {"exa mple.com", "example.com/path", "user@example.com",
                               "example.com:80x", "[::1", "[]", "a:1:2", "x?y", "x#y"}) {
    EXPECT_FALSE(valid_host_value(bad)) << bad;
  }
}

}  // namespace
}  // namespace hookd::net
