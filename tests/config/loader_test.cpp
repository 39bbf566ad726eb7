#include "config/loader.hpp"
#include "config/validate.hpp"

#include <gtest/gtest.h>

namespace hookd::config {
namespace {

using namespace std::chrono_literals;

const MapEnvironment kNoEnv;

constexpr const char* kForward = R"(
[source.forward]
url = "http://127.0.0.1:3000/hooks"
secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
)";

Config load_ok(std::string_view toml, const Environment& env = kNoEnv,
               const Overrides& flags = {}) {
  auto config = load_config_string(toml, env, flags, "test.toml");
  EXPECT_TRUE(config.has_value()) << (config ? "" : config.error().message);
  return config.value_or(Config{});
}

TEST(ConfigLoader, DefaultsWithNoFileAtAll) {
  const auto config = load_config_file(std::nullopt, kNoEnv);
  ASSERT_TRUE(config.has_value()) << config.error().message;
  EXPECT_EQ(config->server.listen, "127.0.0.1:8071");
  EXPECT_EQ(config->server.max_body_bytes, 1024u * 1024);
  EXPECT_EQ(config->server.max_proxy_body_bytes, 64u * 1024 * 1024);
  EXPECT_EQ(config->server.max_header_bytes, 16u * 1024);
  EXPECT_EQ(config->database.url, "./hookd.db");
  EXPECT_EQ(config->database.kind(), DatabaseKind::kSqlite);
  EXPECT_EQ(config->database.sqlite_synchronous, SqliteSynchronous::kFull);
  EXPECT_EQ(config->delivery.connect_timeout, 3s);
  EXPECT_EQ(config->delivery.timeout, 10s);
  EXPECT_EQ(config->delivery.max_response_body_bytes, 4096u);
  EXPECT_TRUE(config->auth.tokens.empty());
  EXPECT_TRUE(config->sources.empty());
  EXPECT_TRUE(config->metrics.enabled);
  EXPECT_EQ(config->logging.format, LogFormat::kJson);
}

TEST(ConfigLoader, DefaultConfigIsValid) { EXPECT_TRUE(validate(Config{}).empty()); }

TEST(ConfigLoader, ParsesEverySection) {
  const Config c = load_ok(R"(
[server]
listen = "0.0.0.0:9000"
io_threads = 4
max_header_bytes = "32KiB"
max_body_bytes = 2097152
max_proxy_body_bytes = "256MiB"
max_url_bytes = "4KiB"
max_json_depth = 32
read_timeout = "20s"
idle_timeout = "2m"
max_connections = 500
shutdown_grace = "10s"

[database]
url = "postgresql://hookd@db/hookd"
sqlite_synchronous = "extra"
pool_size = 20
busy_timeout = "250ms"

[auth]
tokens = [{ name = "ops", token = "tok-ops-1234" }, { name = "ci", token = "tok-ci-5678" }]

[delivery]
connect_timeout = "2s"
timeout = "15s"
max_response_body_bytes = "8KiB"
max_attempts = 5
max_age = "3d"
backoff_base = "1s"
backoff_max = "10m"
schedule = ["5s", "5m", "30m"]
endpoint_concurrency = 2
default_rate_limit = 50
circuit_failure_threshold = 10
circuit_cooldown = "1m"
lease_duration = "2m"
claim_batch_size = 32
poll_interval = "200ms"
workers = 8

[ssrf]
allowed_subnets = ["127.0.0.0/8", "fd00::/8"]

[logging]
level = "debug"
format = "text"
masked_pointers = ["/customer/phone", "/data/id_number"]

[metrics]
enabled = false
path = "/internal/metrics"
)");
  EXPECT_EQ(c.server.listen, "0.0.0.0:9000");
  EXPECT_EQ(c.server.io_threads, 4);
  EXPECT_EQ(c.server.max_header_bytes, 32u * 1024);
  EXPECT_EQ(c.server.max_body_bytes, 2097152u);
  EXPECT_EQ(c.server.max_proxy_body_bytes, 256u * 1024 * 1024);
  EXPECT_EQ(c.server.max_url_bytes, 4u * 1024);
  EXPECT_EQ(c.server.max_json_depth, 32);
  EXPECT_EQ(c.server.read_timeout, 20s);
  EXPECT_EQ(c.server.idle_timeout, 2min);
  EXPECT_EQ(c.server.max_connections, 500);
  EXPECT_EQ(c.server.shutdown_grace, 10s);
  EXPECT_EQ(c.database.kind(), DatabaseKind::kPostgres);
  EXPECT_EQ(c.database.sqlite_synchronous, SqliteSynchronous::kExtra);
  EXPECT_EQ(c.database.pool_size, 20);
  EXPECT_EQ(c.database.busy_timeout, 250ms);
  ASSERT_EQ(c.auth.tokens.size(), 2u);
  EXPECT_EQ(c.auth.tokens[1].name, "ci");
  EXPECT_EQ(c.auth.tokens[1].token, "tok-ci-5678");
  EXPECT_EQ(c.delivery.connect_timeout, 2s);
  EXPECT_EQ(c.delivery.timeout, 15s);
  EXPECT_EQ(c.delivery.max_response_body_bytes, 8192u);
  EXPECT_EQ(c.delivery.retry.max_attempts, 5);
  EXPECT_EQ(c.delivery.retry.max_age, 72h);
  EXPECT_EQ(c.delivery.retry.backoff_base, 1s);
  EXPECT_EQ(c.delivery.retry.backoff_max, 10min);
  EXPECT_EQ(c.delivery.retry.schedule, (std::vector<Duration>{5s, 5min, 30min}));
  EXPECT_EQ(c.delivery.endpoint_concurrency, 2);
  EXPECT_EQ(c.delivery.default_rate_limit, 50);
  EXPECT_EQ(c.delivery.circuit_failure_threshold, 10);
  EXPECT_EQ(c.delivery.circuit_cooldown, 1min);
  EXPECT_EQ(c.delivery.lease_duration, 2min);
  EXPECT_EQ(c.delivery.claim_batch_size, 32);
  EXPECT_EQ(c.delivery.poll_interval, 200ms);
  EXPECT_EQ(c.delivery.workers, 8);
  EXPECT_EQ(c.ssrf.allowed_subnets, (std::vector<std::string>{"127.0.0.0/8", "fd00::/8"}));
  EXPECT_EQ(c.logging.level, LogLevel::kDebug);
  EXPECT_EQ(c.logging.format, LogFormat::kText);
  EXPECT_EQ(c.logging.masked_pointers.size(), 2u);
  EXPECT_FALSE(c.metrics.enabled);
  EXPECT_EQ(c.metrics.path, "/internal/metrics");
}

TEST(ConfigLoader, ParsesSources) {
  const Config c = load_ok(std::string(R"(
[server]
max_body_bytes = "2MiB"

[delivery]
max_attempts = 7

[[source]]
name = "esign"
scheme = "hmac-hex-ts"
secrets = ["old-secret", "new-secret"]
tolerance = "2m"
event_id = "/event_id"
entity_key = "/data/contract_id"
sequence = "/data/version"
depends_on = "/data/depends_on"
state = "/data/status"
terminal_states = ["signed", "voided"]
business_key = "contract:{/data/contract_id}:{/data/status}"
business_key_guard = true
park_timeout = "30m"
max_body_bytes = "256KiB"

[source.hmac_hex_ts]
signature_header = "X-Esign-Signature"
timestamp_header = "X-Esign-Timestamp"

[source.retry]
backoff_base = "2s"
schedule = ["1s", "10s"]

[source.forward]
url = "http://127.0.0.1:3000/esign"
secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
headers = ["X-Request-Id"]

[[source]]
name = "partner"
scheme = "hmac"
secrets = ["k"]
[source.hmac]
algorithm = "sha512"
encoding = "base64"
signature_header = "X-Sig"
signature_prefix = "v1="
template = "{id}.{timestamp}.{body}"
timestamp_header = "X-Ts"
id_header = "X-Id"
)") + kForward + R"(
[[source]]
name = "ce"
scheme = "cloudevents"
allowed_origins = ["events.example.com"]
[source.token]
header = "X-Token"
prefix = ""
)" + kForward);
  ASSERT_EQ(c.sources.size(), 3u);
  const SourceConfig& s = c.sources[0];
  EXPECT_EQ(s.name, "esign");
  EXPECT_EQ(s.scheme, Scheme::kHmacHexTs);
  EXPECT_EQ(s.secrets, (std::vector<std::string>{"old-secret", "new-secret"}));
  EXPECT_EQ(s.tolerance, 2min);
  EXPECT_EQ(s.event_id, "/event_id");
  EXPECT_EQ(s.entity_key, "/data/contract_id");
  EXPECT_EQ(s.sequence, "/data/version");
  EXPECT_EQ(s.depends_on, "/data/depends_on");
  EXPECT_EQ(s.state, "/data/status");
  EXPECT_EQ(s.terminal_states, (std::vector<std::string>{"signed", "voided"}));
  EXPECT_EQ(s.business_key, "contract:{/data/contract_id}:{/data/status}");
  EXPECT_TRUE(s.business_key_guard);
  EXPECT_EQ(s.park_timeout, 30min);
  EXPECT_EQ(s.max_body_bytes, 256u * 1024);
  EXPECT_EQ(s.hmac_hex_ts.signature_header, "X-Esign-Signature");
  EXPECT_EQ(s.hmac_hex_ts.timestamp_header, "X-Esign-Timestamp");
  EXPECT_EQ(s.forward.url, "http://127.0.0.1:3000/esign");
  EXPECT_EQ(s.forward.headers, (std::vector<std::string>{"X-Request-Id"}));
  // Retry: set keys win, the rest comes from [delivery].
  EXPECT_EQ(s.retry.backoff_base, 2s);
  EXPECT_EQ(s.retry.schedule, (std::vector<Duration>{1s, 10s}));
  EXPECT_EQ(s.retry.max_attempts, 7);
  EXPECT_EQ(s.retry.backoff_max, c.delivery.retry.backoff_max);

  const SourceConfig& h = c.sources[1];
  EXPECT_EQ(h.hmac.algorithm, HmacAlgorithm::kSha512);
  EXPECT_EQ(h.hmac.encoding, SignatureEncoding::kBase64);
  EXPECT_EQ(h.hmac.signature_header, "X-Sig");
  EXPECT_EQ(h.hmac.signature_prefix, "v1=");
  EXPECT_EQ(h.hmac.content_template, "{id}.{timestamp}.{body}");
  EXPECT_EQ(h.hmac.timestamp_header, "X-Ts");
  EXPECT_EQ(h.hmac.id_header, "X-Id");
  EXPECT_EQ(h.max_body_bytes, 2u * 1024 * 1024);  // inherited from [server]

  const SourceConfig& ce = c.sources[2];
  EXPECT_EQ(ce.scheme, Scheme::kCloudEvents);
  EXPECT_EQ(ce.allowed_origins, (std::vector<std::string>{"events.example.com"}));
  EXPECT_EQ(ce.token.header, "X-Token");
  EXPECT_EQ(ce.token.prefix, "");
}

TEST(ConfigLoader, SvixIsAnAliasOfStandard) {
  const Config c = load_ok(std::string(R"(
[[source]]
name = "svix"
scheme = "svix"
secrets = ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]
)") + kForward);
  EXPECT_EQ(c.sources.at(0).scheme, Scheme::kStandard);
}

TEST(ConfigLoader, UnreadableFileIsNotFound) {
  const auto config = load_config_file("/nonexistent/hookd.toml", kNoEnv);
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kNotFound);
  EXPECT_NE(config.error().message.find("/nonexistent/hookd.toml"), std::string::npos);
}

TEST(ConfigLoader, TomlSyntaxErrorNamesLine) {
  const auto config = load_config_string("[server]\nlisten = \n", kNoEnv, {}, "bad.toml");
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(config.error().message.find("bad.toml line 2"), std::string::npos)
      << config.error().message;
  EXPECT_NE(config.error().message.find("TOML syntax error"), std::string::npos);
}

}  // namespace
}  // namespace hookd::config
