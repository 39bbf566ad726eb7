// last_error_of: what a delivery keeps as `lastError` after an attempt (shown in the DLQ).
#include <gtest/gtest.h>

#include "store/model.hpp"

namespace hookd::store {
namespace {

Attempt http(std::int64_t status, std::string body) {
  Attempt a;
  a.response_status = status;
  a.response_body = std::move(body);
  return a;
}

TEST(LastErrorOf, HttpFailureNamesStatusAndBodyStart) {
  EXPECT_EQ(last_error_of(http(500, "boom")), "HTTP 500: boom");
  EXPECT_EQ(last_error_of(http(503, "")), "HTTP 503");
  EXPECT_EQ(last_error_of(http(404, "\r\n\t ")), "HTTP 404");
  EXPECT_EQ(last_error_of(http(400, "a\r\n\r\nb  c")), "HTTP 400: a b c");
}

TEST(LastErrorOf, BodyIsCutToTwoHundredBytesOfValidUtf8) {
  auto long_body = last_error_of(http(500, std::string(1000, 'y')));
  ASSERT_TRUE(long_body.has_value());
  EXPECT_EQ(*long_body, "HTTP 500: " + std::string(kLastErrorBodyBytes, 'y'));
  // A multi-byte character is not split at the cut; invalid bytes become '?'.
  auto cut = last_error_of(http(500, std::string(199, 'y') + "\xC3\xA9" + "zz"));
  EXPECT_EQ(*cut, "HTTP 500: " + std::string(199, 'y'));
  EXPECT_EQ(last_error_of(http(500, "ok \xC3\xA9 \xFF\xC3")), "HTTP 500: ok \xC3\xA9 ??");
}

TEST(LastErrorOf, TransportErrorWinsAndSuccessHasNone) {
  Attempt reset;
  reset.error = "connection reset";
  EXPECT_EQ(last_error_of(reset), "connection reset");
  Attempt ok = http(200, "fine");
  ok.success = true;
  EXPECT_EQ(last_error_of(ok), std::nullopt);
  EXPECT_EQ(last_error_of(Attempt{}), std::nullopt);  // neither a response nor an error
}

}  // namespace
}  // namespace hookd::store
