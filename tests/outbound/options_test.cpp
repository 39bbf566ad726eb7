// DispatcherOptions::from: the [delivery] circuit breaker keys reach the breaker (A39), and
// the deprecated circuit_failure_threshold = 0 still turns it off.
#include <gtest/gtest.h>

#include "config/config.hpp"
#include "outbound/dispatcher.hpp"

namespace hookd::outbound {
namespace {

using namespace std::chrono_literals;

TEST(DispatcherOptions, A39_CircuitBreakerKeysReachTheBreaker) {
  config::Config config;
  auto defaults = DispatcherOptions::from(config).gate.breaker;
  EXPECT_TRUE(defaults.enabled);
  EXPECT_DOUBLE_EQ(defaults.failure_rate, 0.9);
  EXPECT_EQ(defaults.min_attempts, 20);
  EXPECT_EQ(defaults.window, 30s);
  EXPECT_EQ(defaults.cooldown, 30s);
  EXPECT_EQ(defaults.ramp_interval, 1s);
  EXPECT_EQ(defaults.min_probe_interval, 1s);
  EXPECT_TRUE(defaults.validate());

  config.delivery.circuit_failure_rate = 75;
  config.delivery.circuit_min_attempts = 7;
  config.delivery.circuit_window = 10s;
  config.delivery.circuit_cooldown = 5s;
  config.delivery.circuit_ramp_interval = 250ms;
  const auto set = DispatcherOptions::from(config).gate.breaker;
  EXPECT_DOUBLE_EQ(set.failure_rate, 0.75);
  EXPECT_EQ(set.min_attempts, 7);
  EXPECT_EQ(set.window, 10s);
  EXPECT_EQ(set.cooldown, 5s);
  EXPECT_EQ(set.ramp_interval, 250ms);
  EXPECT_TRUE(set.validate());
}

TEST(DispatcherOptions, ZeroRateOrTheDeprecatedZeroThresholdTurnsTheBreakerOff) {
  config::Config config;
  config.delivery.circuit_failure_rate = 0;
  EXPECT_FALSE(DispatcherOptions::from(config).gate.breaker.enabled);
  EXPECT_TRUE(DispatcherOptions::from(config).gate.breaker.validate());
  config = {};
  config.delivery.circuit_failure_threshold = 0;
  EXPECT_FALSE(DispatcherOptions::from(config).gate.breaker.enabled);
  config.delivery.circuit_failure_threshold = 5;  // old configs: no effect any more
  EXPECT_TRUE(DispatcherOptions::from(config).gate.breaker.enabled);
}

}  // namespace
}  // namespace hookd::outbound
