// The environment: the system clock reads wall time, the system random source gives bytes
// and samples in range; the fakes move only when told and repeat what they are given.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>

#include "env/fake_env.hpp"
#include "env/system_env.hpp"

namespace hookd::env {
namespace {

using namespace std::chrono_literals;

TEST(SystemClockTest, ReadsTheSystemClockInMilliseconds) {
  SystemClock clock;
  const auto before =
      std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
  const TimePoint now = clock.now();
  EXPECT_GE(now, before);
  EXPECT_LT(now - before, 5s);
  EXPECT_GE(clock.now_ms(), now.time_since_epoch().count());
}

TEST(SystemRandomTest, SamplesAreInRangeAndBytesVary) {
  SystemRandom random;
  for (int i = 0; i < 1000; ++i) {
    const double x = random.uniform01();
    EXPECT_GE(x, 0.0);
    EXPECT_LT(x, 1.0);
  }
  std::array<std::uint8_t, 32> a{}, b{};
  random.fill(a);
  random.fill(b);
  EXPECT_NE(a, b);
}

TEST(FakeClockTest, MovesOnlyWhenToldAndTellsItsListeners) {
  FakeClock clock;
  EXPECT_EQ(clock.now_ms(), FakeClock::kDefaultStartMs);
  int told = 0;
  clock.on_change([&] { ++told; });
  clock.advance(250ms);
  EXPECT_EQ(clock.now_ms(), FakeClock::kDefaultStartMs + 250);
  clock.advance(-50);
  clock.set(TimePoint(10s));
  EXPECT_EQ(clock.now(), TimePoint(10s));
  EXPECT_EQ(told, 3);
}

TEST(FakeRandomTest, RepeatsItsValuesAndCountsItsBytes) {
  FakeRandom fixed;
  EXPECT_EQ(fixed.uniform01(), 0.5);
  FakeRandom sequence({0.1, 0.9});
  EXPECT_EQ(sequence.uniform01(), 0.1);
  EXPECT_EQ(sequence.uniform01(), 0.9);
  EXPECT_EQ(sequence.uniform01(), 0.1);
  std::array<std::uint8_t, 3> bytes{};
  fixed.fill(bytes);
  EXPECT_EQ(bytes, (std::array<std::uint8_t, 3>{1, 2, 3}));
  fixed.fill(bytes);
  EXPECT_EQ(bytes, (std::array<std::uint8_t, 3>{4, 5, 6}));
}

}  // namespace
}  // namespace hookd::env
