// app/module_options: the Config → module options translation of the composition root.
#include <gtest/gtest.h>

#include "app/module_options.hpp"
#include "config/config.hpp"
#include "core/address_policy.hpp"

namespace hookd::app {
namespace {

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
