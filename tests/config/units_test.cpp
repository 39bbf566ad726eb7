#include "config/units.hpp"

#include <gtest/gtest.h>

namespace hookd::config {
namespace {

using namespace std::chrono_literals;

TEST(ConfigUnits, ParsesDurationsWithUnits) {
  EXPECT_EQ(parse_duration("500ms").value(), 500ms);
  EXPECT_EQ(parse_duration("3s").value(), 3s);
  EXPECT_EQ(parse_duration("5m").value(), 5min);
  EXPECT_EQ(parse_duration("2h").value(), 2h);
  EXPECT_EQ(parse_duration("1d").value(), 24h);
  EXPECT_EQ(parse_duration("1h30m").value(), 90min);
  EXPECT_EQ(parse_duration("0").value(), 0ms);
}

TEST(ConfigUnits, RefusesDurationsWithoutOrWithUnknownUnits) {
  EXPECT_NE(parse_duration("3").error().find("unit is missing"), std::string::npos);
  EXPECT_NE(parse_duration("3x").error().find("unknown unit \"x\""), std::string::npos);
  EXPECT_FALSE(parse_duration("").has_value());
  EXPECT_FALSE(parse_duration("-3s").has_value());
  EXPECT_FALSE(parse_duration("s").has_value());
  EXPECT_FALSE(parse_duration("3 s").has_value());
  EXPECT_NE(parse_duration("99999999999d").error().find("too large"), std::string::npos);
}

TEST(ConfigUnits, ParsesSizes) {
  EXPECT_EQ(parse_size("1024").value(), 1024u);
  EXPECT_EQ(parse_size("512B").value(), 512u);
  EXPECT_EQ(parse_size("16KiB").value(), 16u * 1024);
  EXPECT_EQ(parse_size("1MiB").value(), 1024u * 1024);
  EXPECT_EQ(parse_size("2 GiB").value(), 2ull << 30);
}

TEST(ConfigUnits, RefusesAmbiguousOrBadSizes) {
  EXPECT_NE(parse_size("1MB").error().find("KiB, MiB or GiB"), std::string::npos);
  EXPECT_FALSE(parse_size("").has_value());
  EXPECT_FALSE(parse_size("MiB").has_value());
  EXPECT_FALSE(parse_size("1.5MiB").has_value());
  EXPECT_NE(parse_size("99999999999GiB").error().find("too large"), std::string::npos);
}

TEST(ConfigUnits, FormatsRoundTrip) {
  EXPECT_EQ(format_duration(3s), "3s");
  EXPECT_EQ(format_duration(90min), "1h30m");
  EXPECT_EQ(format_duration(1500ms), "1s500ms");
  EXPECT_EQ(format_duration(0ms), "0");
  EXPECT_EQ(format_size(16 * 1024), "16KiB");
  EXPECT_EQ(format_size(1024 * 1024), "1MiB");
  EXPECT_EQ(format_size(1000), "1000");
  EXPECT_EQ(format_size(0), "0");
  for (Duration d : {Duration(1ms), Duration(61s), Duration(25h), Duration(1234567ms)})
    EXPECT_EQ(parse_duration(format_duration(d)).value(), d);
}

}  // namespace
}  // namespace hookd::config
