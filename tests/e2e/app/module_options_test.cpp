// app/module_options: the Config → module options translation of the composition root. The
// [delivery] circuit breaker keys reach the breaker (A39), and the deprecated
// circuit_failure_threshold = 0 still turns it off; every other key lands in its field.
#include <gtest/gtest.h>

#include "app/module_options.hpp"
#include "config/config.hpp"
#include "core/address_policy.hpp"

namespace hookd::app {
namespace {

using namespace std::chrono_literals;

TEST(DispatcherOptions, A39_CircuitBreakerKeysReachTheBreaker) {
  config::Config config;
  auto defaults = dispatcher_options(config).gate.breaker;
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
  const auto set = dispatcher_options(config).gate.breaker;
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
  EXPECT_FALSE(dispatcher_options(config).gate.breaker.enabled);
  EXPECT_TRUE(dispatcher_options(config).gate.breaker.validate());
  config = {};
  config.delivery.circuit_failure_threshold = 0;
  EXPECT_FALSE(dispatcher_options(config).gate.breaker.enabled);
  config.delivery.circuit_failure_threshold = 5;  // old configs: no effect any more
  EXPECT_TRUE(dispatcher_options(config).gate.breaker.enabled);
}

TEST(DispatcherOptions, DeliveryKeysLandInTheirFields) {
  config::Config config;
  auto& d = config.delivery;
  d.poll_interval = 250ms;
  d.lease_duration = 20s;
  d.claim_batch_size = 1000;
  d.connect_timeout = 2s;
  d.timeout = 7s;
  d.max_response_body_bytes = 512;
  d.endpoint_concurrency = 4;
  d.default_rate_limit = 50;
  d.retry.max_attempts = 4;
  d.retry.schedule = {1s, 2s};
  config.server.shutdown_grace = 3s;
  const auto o = dispatcher_options(config);
  EXPECT_EQ(o.node_id, "hookd");  // the caller sets it
  EXPECT_EQ(o.poll_interval, 250ms);
  EXPECT_EQ(o.lease, 20s);
  EXPECT_EQ(o.claim_batch, 1000);
  EXPECT_EQ(o.max_held, 4000);  // at least 4 claims' worth
  EXPECT_EQ(o.connect_timeout, 2s);
  EXPECT_EQ(o.total_timeout, 7s);
  EXPECT_EQ(o.body_excerpt_bytes, 512u);
  EXPECT_EQ(o.stop_grace, 3s);
  EXPECT_EQ(o.gate.max_in_flight, 4u);
  EXPECT_EQ(o.gate.rate.per_second, 50u);
  EXPECT_EQ(o.retry.max_attempts, 4);
  EXPECT_EQ(o.retry.backoff, BackoffKind::kSchedule);
  EXPECT_EQ(o.retry.schedule, (std::vector<std::chrono::milliseconds>{1s, 2s, 2s}));
}

TEST(ApiOptions, TokensJsonDepthAndTheSsrfAllowList) {
  config::Config config;
  config.auth.tokens = {{"alice", "tok-a"}, {"bob", "tok-b"}};
  config.server.max_json_depth = 9;
  config.ssrf.allowed_subnets = {"127.0.0.0/8"};
  const auto o = api_options(config);
  ASSERT_TRUE(o) << o.error().message;
  ASSERT_EQ(o->tokens.size(), 2u);
  EXPECT_EQ(o->tokens[1].name, "bob");
  EXPECT_EQ(o->tokens[1].token, "tok-b");
  EXPECT_EQ(o->max_json_depth, 9);
  EXPECT_TRUE(o->address_policy.check(*IpAddress::parse("127.0.0.1")).allowed);
  EXPECT_FALSE(
      api_options(config::Config{})->address_policy.check(*IpAddress::parse("127.0.0.1")).allowed);
  const api::ApiOptions defaults;
  EXPECT_EQ(o->publish_max_batch, defaults.publish_max_batch);
  EXPECT_EQ(o->idempotency_ttl, defaults.idempotency_ttl);

  config.ssrf.allowed_subnets = {"300.0.0.0/8"};  // the config validator refuses it first
  const auto bad = api_options(config);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(bad.error().message.starts_with("allow-list: ")) << bad.error().message;
}

}  // namespace
}  // namespace hookd::app
