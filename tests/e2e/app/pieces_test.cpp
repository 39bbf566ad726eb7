// Small pure pieces of the composition root: listen addresses, generated tokens.
#include <gtest/gtest.h>

#include "app/api_token.hpp"
#include "app/listen_address.hpp"

namespace hookd::app {
namespace {

TEST(ListenAddressTest, ParsesHostsAndPorts) {
  auto v4 = parse_listen_address("127.0.0.1:8071");
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 8071);
  auto v6 = parse_listen_address("[::1]:0");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
  EXPECT_EQ(base_url(*v6), "http://[::1]:0");
  EXPECT_FALSE(parse_listen_address("localhost"));
  EXPECT_FALSE(parse_listen_address(":80"));
  EXPECT_FALSE(parse_listen_address("h:65536"));
  EXPECT_FALSE(parse_listen_address("h:8x"));
}

TEST(ApiTokenTest, GeneratesOnlyWhenNoneConfigured) {
  config::Config config;
  auto generated = ensure_api_token(config);
  ASSERT_TRUE(generated);
  EXPECT_TRUE(generated->starts_with("hookd_"));
  EXPECT_EQ(generated->size(), 6u + 43u);
  ASSERT_EQ(config.auth.tokens.size(), 1u);
  EXPECT_EQ(config.auth.tokens[0].token, *generated);
  EXPECT_FALSE(ensure_api_token(config));
  EXPECT_NE(generate_api_token(), generate_api_token());
}

}  // namespace
}  // namespace hookd::app
