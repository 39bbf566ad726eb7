#include "hookd/result.hpp"

#include <gtest/gtest.h>

namespace hookd {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return fail(ErrorCode::kInvalidArgument, "must be positive");
  return v;
}

TEST(ResultTest, CarriesValueOrError) {
  EXPECT_EQ(parse_positive(3).value(), 3);
  auto bad = parse_positive(0);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(to_string(bad.error().code), "invalid_argument");
}

}  // namespace
}  // namespace hookd
