#include "config/dump.hpp"

#include <gtest/gtest.h>

#include "config/loader.hpp"

namespace hookd::config {
namespace {

constexpr const char* kToml = R"(
[server]
max_body_bytes = 1500
read_timeout = "1m30s"
[database]
url = "postgresql://hookd:pa55word@db/hookd"
[auth]
tokens = [{ name = "ops", token = "ops-token-secret" }]
[delivery]
schedule = ["5s", "5m"]
[logging]
format = "text"
[[source]]
name = "esign"
scheme = "hmac-hex-ts"
secrets = ["esign-secret-1"]
event_id = "/id"
[source.forward]
url = "http://127.0.0.1:3000/x"
secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
)";

Config load_valid(std::string_view toml) {
  auto config = load_config_string(toml, MapEnvironment{});
  EXPECT_TRUE(config.has_value()) << (config ? "" : config.error().message);
  return config.value_or(Config{});
}

TEST(ConfigDump, RedactsSecrets) {
  const std::string text = dump_toml(load_valid(kToml));
  for (const char* secret : {"pa55word", "ops-token-secret", "esign-secret-1", "whsec_MfKQ"}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << secret << " in\n" << text;
  }
  EXPECT_NE(text.find("postgresql://hookd:<redacted>@db/hookd"), std::string::npos) << text;
  EXPECT_NE(text.find("read_timeout = '1m30s'"), std::string::npos) << text;
  EXPECT_NE(text.find("max_body_bytes = 1500"), std::string::npos) << text;
}

TEST(ConfigDump, RoundTripsWhenSecretsAreShown) {
  const Config first = load_valid(kToml);
  const std::string text = dump_toml(first, Secrets::kShow);
  const Config second = load_valid(text);
  EXPECT_EQ(dump_toml(second, Secrets::kShow), text);
  EXPECT_EQ(second.auth.tokens.at(0).token, "ops-token-secret");
  EXPECT_EQ(second.sources.at(0).retry.schedule, first.sources.at(0).retry.schedule);
}

TEST(ConfigDump, DefaultsRoundTrip) {
  const std::string text = dump_toml(Config{}, Secrets::kShow);
  EXPECT_EQ(dump_toml(load_valid(text), Secrets::kShow), text);
}

}  // namespace
}  // namespace hookd::config
