// Environment variables and flags over the file: HOOKD_<SECTION>_<KEY>, precedence
// flags > env > file > defaults.
#include <gtest/gtest.h>

#include "config/loader.hpp"

namespace hookd::config {
namespace {

using namespace std::chrono_literals;

constexpr const char* kSourceToml = R"(
[[source]]
name = "stripe-live"
scheme = "stripe"
secrets = ["whsec_file"]
[source.forward]
url = "http://127.0.0.1:3000/stripe"
secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
)";

LoadOutcome load_with_env(std::string_view toml,
                          std::map<std::string, std::string, std::less<>> vars,
                          const Overrides& flags = {}) {
  const MapEnvironment env(std::move(vars));
  return load_config_detailed(toml, "hookd.toml", env, flags);
}

std::string all_messages(const LoadOutcome& outcome) { return format_problems(outcome.problems); }

TEST(ConfigEnv, OverridesEachType) {
  const auto out =
      load_with_env("", {
                            {"HOOKD_SERVER_LISTEN", "0.0.0.0:1"},                   // string
                            {"HOOKD_SERVER_IO_THREADS", "3"},                       // int
                            {"HOOKD_SERVER_MAX_BODY_BYTES", "2MiB"},                // size
                            {"HOOKD_DELIVERY_TIMEOUT", "20s"},                      // duration
                            {"HOOKD_DELIVERY_SCHEDULE", "1s, 1m,1h"},               // duration list
                            {"HOOKD_SSRF_ALLOWED_SUBNETS", "10.0.0.0/8,fd00::/8"},  // list
                            {"HOOKD_METRICS_ENABLED", "off"},                       // bool
                            {"HOOKD_LOGGING_LEVEL", "warn"},                        // enum
                            {"HOOKD_AUTH_TOKENS", "ops:tok-1,ci:tok:2"},            // tokens
                        });
  ASSERT_TRUE(out.problems.empty()) << all_messages(out);
  const Config& c = out.config;
  EXPECT_EQ(c.server.listen, "0.0.0.0:1");
  EXPECT_EQ(c.server.io_threads, 3);
  EXPECT_EQ(c.server.max_body_bytes, 2u << 20);
  EXPECT_EQ(c.delivery.timeout, 20s);
  EXPECT_EQ(c.delivery.retry.schedule, (std::vector<Duration>{1s, 1min, 1h}));
  EXPECT_EQ(c.ssrf.allowed_subnets, (std::vector<std::string>{"10.0.0.0/8", "fd00::/8"}));
  EXPECT_FALSE(c.metrics.enabled);
  EXPECT_EQ(c.logging.level, LogLevel::kWarn);
  ASSERT_EQ(c.auth.tokens.size(), 2u);
  EXPECT_EQ(c.auth.tokens[1].name, "ci");
  EXPECT_EQ(c.auth.tokens[1].token, "tok:2");  // split at the first colon only
  EXPECT_EQ(out.origins.of("delivery.timeout"), "env HOOKD_DELIVERY_TIMEOUT");
}

TEST(ConfigEnv, ListsAcceptTomlArraySyntax) {
  const auto out = load_with_env("", {{"HOOKD_LOGGING_MASKED_POINTERS", R"(["/a,b", "/c"])"}});
  ASSERT_TRUE(out.problems.empty()) << all_messages(out);
  EXPECT_EQ(out.config.logging.masked_pointers, (std::vector<std::string>{"/a,b", "/c"}));
}

TEST(ConfigEnv, EmptyListVariableClearsTheList) {
  const auto out = load_with_env("[ssrf]\nallowed_subnets = [\"10.0.0.0/8\"]\n",
                                 {{"HOOKD_SSRF_ALLOWED_SUBNETS", ""}});
  ASSERT_TRUE(out.problems.empty()) << all_messages(out);
  EXPECT_TRUE(out.config.ssrf.allowed_subnets.empty());
}

TEST(ConfigEnv, OverridesSourceKeysByName) {
  const auto out =
      load_with_env(kSourceToml, {{"HOOKD_SOURCE_STRIPE_LIVE_SECRETS", "whsec_a,whsec_b"},
                                  {"HOOKD_SOURCE_STRIPE_LIVE_FORWARD_URL", "http://app:1/x"},
                                  {"HOOKD_SOURCE_STRIPE_LIVE_RETRY_MAX_ATTEMPTS", "3"}});
  ASSERT_TRUE(out.problems.empty()) << all_messages(out);
  const SourceConfig& s = out.config.sources.at(0);
  EXPECT_EQ(s.secrets, (std::vector<std::string>{"whsec_a", "whsec_b"}));
  EXPECT_EQ(s.forward.url, "http://app:1/x");
  EXPECT_EQ(s.retry.max_attempts, 3);
}

TEST(ConfigEnv, PrecedenceFlagsOverEnvOverFileOverDefaults) {
  const std::string toml = R"(
[server]
listen = "10.0.0.1:1"
max_connections = 7
[database]
url = "/var/lib/hookd/file.db"
[auth]
tokens = [{ name = "file", token = "from-file" }]
)";
  // File over defaults.
  auto out = load_with_env(toml, {});
  EXPECT_EQ(out.config.server.listen, "10.0.0.1:1");
  EXPECT_EQ(out.config.server.max_connections, 7);
  EXPECT_EQ(out.config.server.max_body_bytes, 1u << 20);
  EXPECT_EQ(out.origins.of("server.listen"), "hookd.toml line 3");
  // Env over file.
  const std::map<std::string, std::string, std::less<>> env{
      {"HOOKD_SERVER_LISTEN", "10.0.0.2:2"},
      {"HOOKD_DATABASE_URL", "/env.db"},
      {"HOOKD_AUTH_TOKENS", "env:from-env"},
  };
  out = load_with_env(toml, env);
  EXPECT_EQ(out.config.server.listen, "10.0.0.2:2");
  EXPECT_EQ(out.config.database.url, "/env.db");
  EXPECT_EQ(out.config.auth.tokens.at(0).name, "env");
  EXPECT_EQ(out.config.server.max_connections, 7);  // untouched keys keep the file's value
  // Flags over env.
  out = load_with_env(toml, env, Overrides{"10.0.0.3:3", "postgresql://db/x", "from-flag"});
  EXPECT_TRUE(out.problems.empty()) << all_messages(out);
  EXPECT_EQ(out.config.server.listen, "10.0.0.3:3");
  EXPECT_EQ(out.config.database.url, "postgresql://db/x");
  ASSERT_EQ(out.config.auth.tokens.size(), 1u);
  EXPECT_EQ(out.config.auth.tokens[0].name, "cli");
  EXPECT_EQ(out.config.auth.tokens[0].token, "from-flag");
  EXPECT_EQ(out.origins.of("server.listen"), "flag --listen");
}

TEST(ConfigEnv, BadValueNamesTheVariable) {
  const auto out =
      load_with_env("", {{"HOOKD_DELIVERY_TIMEOUT", "10"}, {"HOOKD_SERVER_IO_THREADS", "many"}});
  const std::string text = all_messages(out);
  EXPECT_NE(text.find("delivery.timeout (env HOOKD_DELIVERY_TIMEOUT): a unit is missing"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("server.io_threads (env HOOKD_SERVER_IO_THREADS): expected an integer"),
            std::string::npos)
      << text;
}

TEST(ConfigEnv, InvalidValueFromEnvIsReportedWithTheVariable) {
  const auto out = load_with_env("", {{"HOOKD_SERVER_LISTEN", "nope"}});
  EXPECT_NE(all_messages(out).find("server.listen (env HOOKD_SERVER_LISTEN): \"nope\" has no port"),
            std::string::npos)
      << all_messages(out);
}

TEST(ConfigEnv, UnknownSectionVariableIsATypoWithSuggestion) {
  const auto out =
      load_with_env(kSourceToml, {{"HOOKD_SERVER_LISTN", "x"},
                                  {"HOOKD_SOURCE_STRIPE_SECRETS", "x"},
                                  {"HOOKD_CONFIG", "/etc/hookd.toml"},  // not a section: ignored
                                  {"HOOKD_TEST_BINARY", "x"}});
  const std::string text = all_messages(out);
  EXPECT_EQ(out.problems.size(), 2u) << text;
  EXPECT_NE(text.find("env HOOKD_SERVER_LISTN): unknown configuration variable; did you mean "
                      "HOOKD_SERVER_LISTEN?"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("HOOKD_SOURCE_STRIPE_SECRETS"), std::string::npos) << text;
}

TEST(ConfigEnv, TokensNeedNames) {
  const auto out = load_with_env("", {{"HOOKD_AUTH_TOKENS", "s3cr3t-token"}});
  const std::string text = all_messages(out);
  EXPECT_NE(text.find("auth.tokens (env HOOKD_AUTH_TOKENS): item 0: write name:token"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("s3cr3t"), std::string::npos);
}

TEST(ConfigEnv, ProcessEnvironmentReadsRealVariables) {
  ::setenv("HOOKD_CONFIG_TEST_PROBE", "yes", 1);
  const ProcessEnvironment env;
  EXPECT_EQ(env.get("HOOKD_CONFIG_TEST_PROBE"), "yes");
  EXPECT_FALSE(env.get("HOOKD_CONFIG_TEST_ABSENT").has_value());
  const auto names = env.names();
  EXPECT_NE(std::find(names.begin(), names.end(), "HOOKD_CONFIG_TEST_PROBE"), names.end());
  ::unsetenv("HOOKD_CONFIG_TEST_PROBE");
}

}  // namespace
}  // namespace hookd::config
