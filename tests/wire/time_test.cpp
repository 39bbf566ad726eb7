// The wire format's ISO-8601 times: written with milliseconds in UTC, read with an optional
// fraction and a Z or ±hh:mm offset.
#include "wire/time.hpp"

#include <gtest/gtest.h>

namespace hookd::wire {
namespace {

TEST(Time, FormatsAndParsesIso8601) {
  EXPECT_EQ(format_time(1'704'067'200'000), "2024-01-01T00:00:00.000Z");
  EXPECT_EQ(format_time(1'704'067'200'123), "2024-01-01T00:00:00.123Z");
  EXPECT_EQ(parse_time("2024-01-01T00:00:00Z"), 1'704'067'200'000);
  EXPECT_EQ(parse_time("2024-01-01T00:00:00.123Z"), 1'704'067'200'123);
  EXPECT_EQ(parse_time("2024-01-01T01:00:00+01:00"), 1'704'067'200'000);
  EXPECT_FALSE(parse_time("2024-01-01").has_value());
  EXPECT_FALSE(parse_time("yesterday").has_value());
}

}  // namespace
}  // namespace hookd::wire
