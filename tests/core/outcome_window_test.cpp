// The circuit breaker's failure-rate window (A39): counts over the last `length`, old
// buckets forgotten, span measured from the first counted outcome.
#include "core/outcome_window.hpp"

#include <gtest/gtest.h>

namespace hookd {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const TimePoint kWindowStart = TimePoint(seconds(1'700'000'000));

TEST(OutcomeWindow, CountsAttemptsAndFailuresOfTheLastWindow) {
  OutcomeWindow window(seconds(10));  // buckets of 1 s
  for (int i = 0; i < 10; ++i) window.add(kWindowStart + seconds(i), i % 2 == 0);
  const WindowTotals all = window.totals(kWindowStart + seconds(9));
  EXPECT_EQ(all.attempts, 10);
  EXPECT_EQ(all.failures, 5);
  // Five seconds later the first five buckets have left the window.
  const WindowTotals later = window.totals(kWindowStart + seconds(14));
  EXPECT_EQ(later.attempts, 5);
  EXPECT_EQ(later.failures, 2);
  EXPECT_EQ(window.totals(kWindowStart + seconds(30)).attempts, 0);
}

TEST(OutcomeWindow, ABucketReusedAfterAWholeWindowStartsAfresh) {
  OutcomeWindow window(seconds(10));
  window.add(kWindowStart, true);
  window.add(kWindowStart + seconds(10), false);  // the same ring slot, ten seconds later
  const WindowTotals totals = window.totals(kWindowStart + seconds(10));
  EXPECT_EQ(totals.attempts, 1);
  EXPECT_EQ(totals.failures, 0);
}

TEST(OutcomeWindow, SpanIsFromTheFirstCountedOutcome) {
  OutcomeWindow window(seconds(10));
  EXPECT_EQ(window.span(kWindowStart), milliseconds(0));
  window.add(kWindowStart + milliseconds(1500), true);
  window.add(kWindowStart + seconds(4), true);
  EXPECT_EQ(window.span(kWindowStart + seconds(6)), milliseconds(4500));
  // Once the first has aged out, the span starts at the second.
  EXPECT_EQ(window.span(kWindowStart + seconds(12)), seconds(8));
  window.clear();
  EXPECT_EQ(window.span(kWindowStart + seconds(12)), milliseconds(0));
  EXPECT_EQ(window.totals(kWindowStart + seconds(12)).attempts, 0);
}

}  // namespace
}  // namespace hookd
