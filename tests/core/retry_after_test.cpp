#include <gtest/gtest.h>

#include "hookd/retry.hpp"

namespace hookd {
namespace {

using namespace std::chrono;

TimePoint at(int y, unsigned m, unsigned d, int hh = 0, int mm = 0, int ss = 0) {
  return time_point_cast<milliseconds>(sys_days{year{y} / month{m} / day{d}} + hours{hh} +
                                       minutes{mm} + seconds{ss});
}

const TimePoint kNow = at(2026, 11, 29, 12, 0, 0);

// RFC 9110 §5.6.7: the three forms of the same instant.
TEST(HttpDateTest, ParsesAllThreeForms) {
  const TimePoint expected = at(1994, 11, 6, 8, 49, 37);
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", kNow), expected);
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", kNow), expected);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994", kNow), expected);
  EXPECT_EQ(parse_http_date("Sun Nov 16 08:49:37 1994", kNow), at(1994, 11, 16, 8, 49, 37));
  EXPECT_EQ(parse_http_date("  Tue, 29 Feb 2028 23:59:59 GMT\t", kNow),
            at(2028, 2, 29, 23, 59, 59));
}

TEST(HttpDateTest, TwoDigitYearMoreThanFiftyYearsAheadIsPastCentury) {
  // now = 2026: "76" -> 2076 (exactly 50 ahead is allowed), "77" -> 1977, "26" -> 2026.
  EXPECT_EQ(parse_http_date("Monday, 01-Jan-76 00:00:00 GMT", kNow), at(2076, 1, 1));
  EXPECT_EQ(parse_http_date("Monday, 01-Jan-77 00:00:00 GMT", kNow), at(1977, 1, 1));
  EXPECT_EQ(parse_http_date("Monday, 01-Jan-26 00:00:00 GMT", kNow), at(2026, 1, 1));
}

TEST(HttpDateTest, RejectsMalformedDates) {
  for (auto text : {
           "",
           "GMT",
           "Sun, 06 Nov 1994 08:49:37",           // no zone
           "Sun, 06 Nov 1994 08:49:37 UTC",       // wrong zone
           "Sun, 06 Nov 1994 08:49:37 GMT x",     // trailing garbage
           "Sun, 6 Nov 1994 08:49:37 GMT",        // one-digit day
           "Sun, 06 November 1994 08:49:37 GMT",  // long month
           "Sun, 06 nov 1994 08:49:37 GMT",       // names are case-sensitive
           "Xyz, 06 Nov 1994 08:49:37 GMT",       // unknown day
           "Sun, 31 Nov 1994 08:49:37 GMT",       // no such day
           "Sun, 29 Feb 2027 08:49:37 GMT",       // not a leap year
           "Sun, 06 Nov 1994 24:00:00 GMT",       // hour out of range
           "Sun, 06 Nov 1994 08:60:00 GMT",       // minute out of range
           "Sun, 06 Nov 1994 08:49:61 GMT",       // second out of range
           "Sun, 06 Nov 94 08:49:37 GMT",         // short year in IMF form
           "Sunday, 06-Nov-1994 08:49:37 GMT",    // long year in RFC 850 form
           "Sun, 06-Nov-94 08:49:37 GMT",         // short day name in RFC 850 form
           "Sun Nov 6 08:49:37 1994",             // asctime day needs padding
           "Sun Nov  6 08:49:37 94",              // asctime short year
           "Sun Nov  6 8:49:37 1994",             // one-digit hour
       }) {
    EXPECT_FALSE(parse_http_date(text, kNow).has_value()) << text;
  }
}

// A02: Retry-After in both forms, relative to now.
TEST(RetryAfterTest, DelaySecondsAndDates) {
  EXPECT_EQ(parse_retry_after("120", kNow), seconds(120));
  EXPECT_EQ(parse_retry_after("0", kNow), seconds(0));
  EXPECT_EQ(parse_retry_after(" 7 ", kNow), seconds(7));
  EXPECT_EQ(parse_retry_after("Sun, 29 Nov 2026 12:05:00 GMT", kNow), minutes(5));
  EXPECT_EQ(parse_retry_after("Sunday, 29-Nov-26 13:00:00 GMT", kNow), hours(1));
  EXPECT_EQ(parse_retry_after("Sun Nov 29 12:00:30 2026", kNow), seconds(30));
  // A date in the past asks for no delay.
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", kNow), milliseconds(0));
  // Huge values saturate (the policy clamps them) instead of overflowing.
  const auto huge = parse_retry_after("99999999999999999999999999", kNow);
  ASSERT_TRUE(huge.has_value());
  EXPECT_GT(*huge, hours(24 * 365));
}

TEST(RetryAfterTest, GarbageAndNegativeAreIgnored) {
  for (auto text : {"", "  ", "-5", "+5", "1.5", "5s", "12abc", "0x10", "soon", "1e3", "5 5"}) {
    EXPECT_FALSE(parse_retry_after(text, kNow).has_value()) << text;
  }
}

}  // namespace
}  // namespace hookd
