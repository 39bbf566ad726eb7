// Small pure pieces of the composition root: listen addresses, generated tokens.
#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>

#include "app/api_token.hpp"
#include "app/listen_address.hpp"
#include "env/fake_env.hpp"
#include "env/system_env.hpp"

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
  env::SystemRandom random;
  auto generated = ensure_api_token(config, random);
  ASSERT_TRUE(generated);
  EXPECT_TRUE(generated->starts_with("hookd_"));
  EXPECT_EQ(generated->size(), 6u + 43u);
  ASSERT_EQ(config.auth.tokens.size(), 1u);
  EXPECT_EQ(config.auth.tokens[0].token, *generated);
  EXPECT_FALSE(ensure_api_token(config, random));
  EXPECT_NE(generate_api_token(random), generate_api_token(random));
}

// Every character comes from the Random it is given, bytes of 248 and above are skipped
// (so that all 62 characters are equally likely), and only base62 characters appear.
TEST(ApiTokenTest, DrawsFromTheGivenRandomWithoutBias) {
  env::FakeRandom counting;  // fill: 1, 2, 3, ... (wrapping at 256)
  const auto token = generate_api_token(counting);
  EXPECT_EQ(token, "hookd_123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefgh");
  class HighBytes final : public Random {
   public:
    double uniform01() override { return 0; }
    void fill(std::span<std::uint8_t> out) override {
      for (auto& b : out) b = (calls_ == 0) ? 250 : 61;  // first batch: all rejected
      ++calls_;
    }

   private:
    int calls_ = 0;
  } high;
  EXPECT_EQ(generate_api_token(high), "hookd_" + std::string(43, 'z'));
}

}  // namespace
}  // namespace hookd::app
