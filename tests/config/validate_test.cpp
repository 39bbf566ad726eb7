// Every validation error: the message names the key (full dotted path), where the value came
// from, what is wrong and what is allowed; secret values never appear.
#include <gtest/gtest.h>

#include "config/config.hpp"
#include "config/loader.hpp"
#include "config/validate.hpp"
#include "config_test_helpers.hpp"

namespace hookd::config {
namespace {

using testing::kWhsec;
using testing::load;
using testing::problems_of;

// A valid [[source]] with `top` keys added at its top level and `tables` after it.
std::string source(std::string_view top, std::string_view tables = "",
                   std::string_view scheme = "stripe", std::string_view name = "src") {
  return "[[source]]\nname = \"" + std::string(name) + "\"\nscheme = \"" + std::string(scheme) +
         "\"\nsecrets = [\"sk-1\"]\n" + std::string(top) +
         "\n[source.forward]\nurl = \"http://127.0.0.1:3000/in\"\nsecret = \"" + kWhsec + "\"\n" +
         std::string(tables) + "\n";
}

TEST(ConfigValidate, ValidSourceHasNoProblems) { EXPECT_EQ(problems_of(source("")), ""); }

TEST(ConfigValidate, UnknownKeysAreErrorsWithSuggestions) {
  const auto text = problems_of("[server]\nmax_body_byte = 5\n[delivry]\n" +
                                source("secret = []", "[source.forward2]\n"));
  EXPECT_PROBLEM(
      text,
      "server.max_body_byte (hookd.toml line 2): unknown key; did you mean \"max_body_bytes\"?");
  EXPECT_PROBLEM(text, "delivry (hookd.toml line 3): unknown key; did you mean \"delivery\"?");
  EXPECT_PROBLEM(text,
                 "source[src].secret (hookd.toml line 8): unknown key; did you mean \"secrets\"?");
  EXPECT_PROBLEM(text, "source[src].forward2");
}

TEST(ConfigValidate, WrongTypes) {
  const auto text = problems_of(R"(
[server]
max_connections = "100"
listen = 8071
max_body_bytes = 1.5
[delivery]
schedule = "5s"
[metrics]
enabled = "yes"
[logging]
masked_pointers = [1]
[auth]
tokens = ["just-a-token"]
[ssrf]
allowed_subnets = { a = 1 }
database = 3
)");
  EXPECT_PROBLEM(text,
                 "server.max_connections (hookd.toml line 3): expected an integer, got a string");
  EXPECT_PROBLEM(text, "server.listen (hookd.toml line 4): expected a string, got an integer");
  EXPECT_PROBLEM(
      text, "server.max_body_bytes (hookd.toml line 5): expected a byte count or a size string");
  EXPECT_PROBLEM(
      text, "delivery.schedule (hookd.toml line 7): expected a list of durations, got a string");
  EXPECT_PROBLEM(text, "metrics.enabled (hookd.toml line 9): expected true or false, got a string");
  EXPECT_PROBLEM(
      text,
      "logging.masked_pointers (hookd.toml line 11): item 0: expected a string, got an integer");
  EXPECT_PROBLEM(text,
                 "auth.tokens (hookd.toml line 13): item 0: expected a table { name = \"...\", "
                 "token = \"...\" }");
  EXPECT_PROBLEM(
      text, "ssrf.allowed_subnets (hookd.toml line 15): expected a list of strings, got a table");
  EXPECT_PROBLEM(text, "ssrf.database (hookd.toml line 16): unknown key");
}

TEST(ConfigValidate, SectionMustBeATable) {
  EXPECT_PROBLEM(problems_of("server = 1\n"),
                 "server (hookd.toml line 1): expected a table ([server]), got an integer");
  EXPECT_PROBLEM(problems_of("source = 1\n"),
                 "source (hookd.toml line 1): expected [[source]] tables");
}

TEST(ConfigValidate, DurationsNeedUnits) {
  const auto text = problems_of("[delivery]\ntimeout = 10\nconnect_timeout = \"3 sec\"\n");
  EXPECT_PROBLEM(text,
                 "delivery.timeout (hookd.toml line 2): expected a duration string with a unit, "
                 "got the integer 10; write \"10s\"");
  EXPECT_PROBLEM(text, "delivery.connect_timeout (hookd.toml line 3): invalid duration \"3 sec\"");
}

TEST(ConfigValidate, OutOfRange) {
  const auto text = problems_of(R"(
[server]
max_connections = 0
max_header_bytes = "4MiB"
read_timeout = "0"
io_threads = 100000000000
[database]
pool_size = 0
[delivery]
max_attempts = 0
workers = 5000
max_response_body_bytes = "2MiB"
poll_interval = "1ms"
)");
  EXPECT_PROBLEM(
      text, "server.max_connections (hookd.toml line 3): must be between 1 and 1000000, got 0");
  EXPECT_PROBLEM(text,
                 "server.max_header_bytes (hookd.toml line 4): must be between \"1KiB\" and "
                 "\"1MiB\", got \"4MiB\"");
  EXPECT_PROBLEM(
      text,
      "server.read_timeout (hookd.toml line 5): must be between \"1s\" and \"1h\", got \"0\"");
  EXPECT_PROBLEM(text, "server.io_threads (hookd.toml line 6): integer is too large");
  EXPECT_PROBLEM(text, "database.pool_size (hookd.toml line 8): must be between 1 and 1000");
  EXPECT_PROBLEM(text, "delivery.max_attempts (hookd.toml line 10): must be between 1 and 100");
  EXPECT_PROBLEM(text, "delivery.workers (hookd.toml line 11)");
  EXPECT_PROBLEM(text, "delivery.max_response_body_bytes (hookd.toml line 12)");
  EXPECT_PROBLEM(text, "delivery.poll_interval (hookd.toml line 13)");
}

// A39: every circuit breaker threshold is a key with a default and a range.
TEST(ConfigValidate, A39_CircuitBreakerKeysHaveDefaultsAndRanges) {
  EXPECT_EQ(problems_of(""), "");
  const Config defaults;
  EXPECT_EQ(defaults.delivery.circuit_failure_rate, 90);
  EXPECT_EQ(defaults.delivery.circuit_min_attempts, 20);
  EXPECT_EQ(defaults.delivery.circuit_window, std::chrono::seconds(30));
  EXPECT_EQ(defaults.delivery.circuit_cooldown, std::chrono::seconds(30));
  EXPECT_EQ(defaults.delivery.circuit_ramp_interval, std::chrono::seconds(1));
  const auto text = problems_of(R"([delivery]
circuit_failure_rate = 101
circuit_min_attempts = 0
circuit_window = "500ms"
circuit_cooldown = "0s"
circuit_ramp_interval = "1ms"
circuit_failure_threshold = -2
)");
  EXPECT_PROBLEM(text,
                 "delivery.circuit_failure_rate (hookd.toml line 2): must be between 0 and 100");
  EXPECT_PROBLEM(text, "delivery.circuit_min_attempts (hookd.toml line 3): must be between 1");
  EXPECT_PROBLEM(text, "delivery.circuit_window (hookd.toml line 4)");
  EXPECT_PROBLEM(text, "delivery.circuit_cooldown (hookd.toml line 5)");
  EXPECT_PROBLEM(text, "delivery.circuit_ramp_interval (hookd.toml line 6)");
  EXPECT_PROBLEM(text, "delivery.circuit_failure_threshold (hookd.toml line 7)");
  EXPECT_EQ(problems_of("[delivery]\ncircuit_failure_rate = 0\ncircuit_failure_threshold = 0\n"),
            "");
}

TEST(ConfigValidate, UrlLimitFitsInTheHeaderLimit) {
  EXPECT_PROBLEM(problems_of("[server]\nmax_url_bytes = \"32KiB\"\n"),
                 "server.max_url_bytes (hookd.toml line 2): must be between \"256\" and \"16KiB\", "
                 "got \"32KiB\"");
}

TEST(ConfigValidate, SecretsAreNotEchoedFromBadEnvironmentLists) {
  const auto text = problems_of(source(""), {{"HOOKD_SOURCE_SRC_SECRETS", "[\"topsecret-value"}});
  EXPECT_PROBLEM(text,
                 "source[src].secrets (env HOOKD_SOURCE_SRC_SECRETS): is not a valid TOML array");
  EXPECT_EQ(text.find("topsecret"), std::string::npos);
}

TEST(ConfigValidate, ProxyBodyLimitHasItsRange) {
  EXPECT_PROBLEM(problems_of("[server]\nmax_proxy_body_bytes = 100\n"),
                 "server.max_proxy_body_bytes (hookd.toml line 2): must be between");
  EXPECT_EQ(problems_of("[server]\nmax_proxy_body_bytes = \"1GiB\"\n"), "");
}

TEST(ConfigValidate, NegativeSize) {
  EXPECT_PROBLEM(problems_of("[server]\nmax_body_bytes = -1\n"),
                 "server.max_body_bytes (hookd.toml line 2): a size cannot be negative");
}

TEST(ConfigValidate, CrossKeyRules) {
  const auto text = problems_of(R"(
[delivery]
connect_timeout = "20s"
timeout = "15s"
lease_duration = "15s"
backoff_base = "2m"
backoff_max = "1m"
)");
  EXPECT_PROBLEM(text,
                 "delivery.connect_timeout (hookd.toml line 3): must not be longer than "
                 "delivery.timeout (15s)");
  EXPECT_PROBLEM(
      text,
      "delivery.lease_duration (hookd.toml line 5): must be longer than delivery.timeout (15s)");
  EXPECT_PROBLEM(
      text,
      "delivery.backoff_max (hookd.toml line 7): must be at least delivery.backoff_base (2m)");
}

TEST(ConfigValidate, BadListenAndDatabase) {
  const auto text = problems_of(
      "[server]\nlisten = \"127.0.0.1\"\n[database]\nurl = \"mysql://root:hunter2@db/x\"\n");
  EXPECT_PROBLEM(text,
                 "server.listen (hookd.toml line 2): \"127.0.0.1\" has no port; write host:port");
  EXPECT_PROBLEM(text, "database.url (hookd.toml line 4): unsupported URL scheme \"mysql://\"");
  EXPECT_EQ(text.find("hunter2"), std::string::npos);
}

TEST(ConfigValidate, SqliteSynchronousOff) {
  EXPECT_PROBLEM(problems_of("[database]\nsqlite_synchronous = \"off\"\n"),
                 "database.sqlite_synchronous (hookd.toml line 2): must be one of \"full\", "
                 "\"normal\" or \"extra\"");
}

TEST(ConfigValidate, BadCidr) {
  const auto text =
      problems_of("[ssrf]\nallowed_subnets = [\"10.0.0.0/8\", \"10.0.0.0\", \"300.0.0.0/8\"]\n");
  EXPECT_PROBLEM(
      text, "ssrf.allowed_subnets (hookd.toml line 2): item 1: subnet \"10.0.0.0\" has no /prefix");
  EXPECT_PROBLEM(text, "item 2: subnet \"300.0.0.0/8\" has an invalid IP address");
}

TEST(ConfigValidate, BadMaskedPointerAndMetricsPath) {
  const auto text =
      problems_of("[logging]\nmasked_pointers = [\"phone\"]\n[metrics]\npath = \"/in/metrics\"\n");
  EXPECT_PROBLEM(text,
                 "logging.masked_pointers (hookd.toml line 2): item 0: JSON pointer \"phone\" must "
                 "start with \"/\"");
  EXPECT_PROBLEM(text,
                 "metrics.path (hookd.toml line 4): must not be under /in/, /api/ or /proxy/");
  EXPECT_PROBLEM(problems_of("[metrics]\npath = \"/proxy/metrics\"\n"),
                 "metrics.path (hookd.toml line 2): must not be under /in/, /api/ or /proxy/");
  EXPECT_PROBLEM(problems_of("[metrics]\npath = \"metrics\"\n"),
                 "metrics.path (hookd.toml line 2): path \"metrics\" must start with \"/\"");
}

TEST(ConfigValidate, AuthTokens) {
  const auto text = problems_of(R"(
[auth]
tokens = [
  { name = "ops", token = "same-secret-value" },
  { name = "ops", token = "same-secret-value" },
  { name = "Bad Name", token = "has space" },
  { name = "x", token = "" },
  { name = "y" },
  { name = "z", token = "t", role = "admin" },
]
)");
  EXPECT_PROBLEM(text,
                 "auth.tokens (hookd.toml line 3): item 4: expected a table { name = \"...\", "
                 "token = \"...\" }");
  EXPECT_PROBLEM(
      problems_of("[auth]\ntokens = [{ name = \"z\", token = \"t\", role = \"admin\" }]\n"),
      "auth.tokens (hookd.toml line 2): item 0: unknown key \"role\"");
  const auto text2 = problems_of(R"(
[auth]
tokens = [
  { name = "ops", token = "same-secret-value" },
  { name = "ops", token = "same-secret-value" },
  { name = "Bad Name", token = "has space" },
  { name = "x", token = "" },
]
)");
  EXPECT_PROBLEM(text2,
                 "auth.tokens[1].name (hookd.toml line 3): name \"ops\" is used by another token");
  EXPECT_PROBLEM(
      text2,
      "auth.tokens[1].token (hookd.toml line 3): has the same value as the token named \"ops\"");
  EXPECT_PROBLEM(text2, "auth.tokens[2].name (hookd.toml line 3): name \"Bad Name\" must be");
  EXPECT_PROBLEM(text2, "auth.tokens[2].token (hookd.toml line 3): contains whitespace");
  EXPECT_PROBLEM(text2, "auth.tokens[3].token (hookd.toml line 3): is empty");
  EXPECT_EQ(text2.find("same-secret-value"), std::string::npos);
  EXPECT_EQ(text2.find("has space"), std::string::npos);
}

TEST(ConfigValidate, SourceNames) {
  const auto text =
      problems_of(source("", "", "stripe", "dup") + source("", "", "stripe", "dup") +
                  source("", "", "stripe", "a-b") + source("", "", "stripe", "a_b") +
                  source("", "", "stripe", "../etc") + "[[source]]\nscheme = \"none\"\n");
  EXPECT_PROBLEM(
      text,
      "source[dup].name (hookd.toml line 11): another [[source]] already has the name \"dup\"");
  EXPECT_PROBLEM(text,
                 "source[a_b].name (hookd.toml line 29): \"a_b\" and \"a-b\" have the same "
                 "environment variables (HOOKD_SOURCE_A_B_...)");
  EXPECT_PROBLEM(text,
                 "source[../etc].name (hookd.toml line 38): name \"../etc\" must be 1-64 "
                 "characters of a-z, 0-9, _ and -");
  EXPECT_PROBLEM(text, "source[#5].name (hookd.toml line 46): every [[source]] needs a name");
}

TEST(ConfigValidate, UnknownScheme) {
  EXPECT_PROBLEM(problems_of(source("", "", "stripe-v2")),
                 "source[src].scheme (hookd.toml line 3): must be one of \"standard\", "
                 "\"standard-ed25519\", \"stripe\"");
}

TEST(ConfigValidate, SecretsPerScheme) {
  const auto standard = problems_of(source("", "", "standard"));
  EXPECT_PROBLEM(standard,
                 "source[src].secrets (hookd.toml line 4): scheme \"standard\" needs secrets of "
                 "the form whsec_<base64>");
  EXPECT_EQ(standard.find("sk-1"), std::string::npos);
  const auto ed = problems_of(source("", "", "standard-ed25519"));
  EXPECT_PROBLEM(ed, "needs whpk_<base64 public key>");
  EXPECT_PROBLEM(
      problems_of(source("", "", "standard-ed25519"), {{"HOOKD_SOURCE_SRC_SECRETS", "whpk_YQ=="}}),
      "an Ed25519 key is malformed: the key must be 32 bytes, got 1");
  EXPECT_EQ(problems_of(source("", "", "standard-ed25519"),
                        {{"HOOKD_SOURCE_SRC_SECRETS",
                          "whpk_11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="}}),
            "");
  EXPECT_PROBLEM(problems_of(source("", "", "none")),
                 "source[src].secrets (hookd.toml line 4): scheme \"none\" verifies nothing");
  const std::string no_secrets =
      "[[source]]\nname = \"g\"\nscheme = \"github\"\n[source.forward]\nurl = "
      "\"http://a/\"\nsecret = \"" +
      std::string(kWhsec) + "\"\n";
  EXPECT_PROBLEM(problems_of(no_secrets),
                 "source[g].secrets (default): scheme \"github\" needs at least one secret");
  const auto from_env = problems_of(no_secrets, {{"HOOKD_SOURCE_G_SECRETS", ","}});
  EXPECT_PROBLEM(from_env,
                 "source[g].secrets (env HOOKD_SOURCE_G_SECRETS): scheme \"github\" needs at least "
                 "one secret");
}

TEST(ConfigValidate, EventIdAndPointers) {
  EXPECT_PROBLEM(problems_of(source("", "", "hmac-hex-ts")),
                 "source[src].event_id (default): scheme \"hmac-hex-ts\" has no event id of its "
                 "own; set event_id");
  EXPECT_EQ(problems_of(source("event_id = \"X-Request-Id\"", "", "hmac-hex-ts")), "");
  EXPECT_PROBLEM(problems_of(source("event_id = \"X Request\"")),
                 "source[src].event_id (hookd.toml line 5): header name \"X Request\"");
  EXPECT_PROBLEM(problems_of(source("event_id = \"/a~x\"")),
                 "source[src].event_id (hookd.toml line 5): JSON pointer \"/a~x\"");
  const auto text =
      problems_of(source("entity_key = \"data/id\"\ndepends_on = \"x\"\nstate = \"/s\"\n"));
  EXPECT_PROBLEM(
      text,
      "source[src].entity_key (hookd.toml line 5): JSON pointer \"data/id\" must start with \"/\"");
  EXPECT_PROBLEM(text, "source[src].depends_on (hookd.toml line 6): JSON pointer \"x\"");
}

TEST(ConfigValidate, OrderingNeedsEntityAndState) {
  const auto text = problems_of(
      source("sequence = \"/v\"\nterminal_states = [\"done\"]\nbusiness_key_guard = true\n"));
  EXPECT_PROBLEM(text, "source[src].sequence (hookd.toml line 5): needs source[src].entity_key");
  EXPECT_PROBLEM(text, "source[src].terminal_states (hookd.toml line 6): needs source[src].state");
  EXPECT_PROBLEM(
      text, "source[src].business_key_guard (hookd.toml line 7): needs source[src].business_key");
  EXPECT_PROBLEM(problems_of(source("business_key = \"delivery:{data/order_id}\"")),
                 "source[src].business_key (hookd.toml line 5): template "
                 "\"delivery:{data/order_id}\": JSON pointer");
  EXPECT_PROBLEM(problems_of(source("business_key = \"delivery\"")),
                 "has no {/json/pointer} placeholder");
}

TEST(ConfigValidate, Forward) {
  const std::string base = "[[source]]\nname = \"s\"\nscheme = \"github\"\nsecrets = [\"k\"]\n";
  const auto missing = problems_of(base);
  EXPECT_PROBLEM(missing, "source[s].forward.url (default): is required");
  EXPECT_PROBLEM(missing, "source[s].forward.secret (default): is required");
  const auto bad = problems_of(base +
                               "[source.forward]\nurl = \"ftp://app/x\"\nsecret = "
                               "\"plain-secret-123\"\nheaders = [\"X Bad\"]\n");
  EXPECT_PROBLEM(bad,
                 "source[s].forward.url (hookd.toml line 6): URL \"ftp://app/x\" must start with "
                 "http:// or https://");
  EXPECT_PROBLEM(bad,
                 "source[s].forward.secret (hookd.toml line 7): must be whsec_<base64> (the value "
                 "is not shown)");
  EXPECT_PROBLEM(bad, "source[s].forward.headers (hookd.toml line 8): header name \"X Bad\"");
  EXPECT_EQ(bad.find("plain-secret-123"), std::string::npos);
}

TEST(ConfigValidate, SchemeOptionsMustMatchTheScheme) {
  const auto text = problems_of(source(
      "allowed_origins = [\"a.example\"]",
      "[source.hmac]\nalgorithm = \"sha512\"\n[source.hmac_hex_ts]\nsignature_header = \"X-S\"\n"));
  EXPECT_PROBLEM(text,
                 "source[src].hmac (hookd.toml line 10): is only used with scheme = \"hmac\", but "
                 "this source has scheme = \"stripe\"");
  EXPECT_PROBLEM(
      text,
      "source[src].hmac_hex_ts (hookd.toml line 12): is only used with scheme = \"hmac-hex-ts\"");
  EXPECT_PROBLEM(text,
                 "source[src].allowed_origins (hookd.toml line 5): is only used with scheme = "
                 "\"cloudevents\"");
}

TEST(ConfigValidate, GenericHmacOptions) {
  const auto unsigned_ts =
      problems_of(source("", "[source.hmac]\ntemplate = \"{body}\"\n", "hmac"));
  EXPECT_PROBLEM(unsigned_ts,
                 "source[src].hmac.timestamp_header (default): is set but the template does not "
                 "sign {timestamp}");
  const auto no_header = problems_of(source("",
                                            "[source.hmac]\ntimestamp_header = \"\"\nid_header = "
                                            "\"\"\ntemplate = \"{id}.{timestamp}.{body}\"\n",
                                            "hmac"));
  EXPECT_PROBLEM(no_header,
                 "source[src].hmac.template (hookd.toml line 12): uses {timestamp} but "
                 "source[src].hmac.timestamp_header is empty");
  EXPECT_PROBLEM(
      problems_of(source(
          "",
          "[source.hmac]\ntimestamp_header = \"\"\nid_header = \"\"\ntemplate = \"{id}.{body}\"\n",
          "hmac")),
      "uses {id} but source[src].hmac.id_header is empty");
  EXPECT_PROBLEM(problems_of(source("", "[source.hmac]\ntemplate = \"{ts}.{body}\"\n", "hmac")),
                 "source[src].hmac.template (hookd.toml line 10): template \"{ts}.{body}\": "
                 "unknown placeholder \"{ts}\"");
  EXPECT_PROBLEM(
      problems_of(source("", "[source.hmac]\nencoding = \"base32\"\n", "hmac")),
      "source[src].hmac.encoding (hookd.toml line 10): must be one of \"hex\" or \"base64\"");
  EXPECT_EQ(problems_of(source("", "[source.hmac]\nsignature_prefix = \"sha256=\"\n", "hmac")), "");
}

TEST(ConfigValidate, SourceRetryChecksOnlyWhatItSets) {
  // An invalid [delivery] value is reported once, not again for every source inheriting it.
  const auto text =
      problems_of("[delivery]\nmax_attempts = 0\n" +
                  source("", "[source.retry]\nbackoff_base = \"1h\"\nbackoff_max = \"1m\"\n"));
  EXPECT_PROBLEM(text, "delivery.max_attempts (hookd.toml line 2)");
  EXPECT_EQ(text.find("source[src].retry.max_attempts"), std::string::npos);
  EXPECT_PROBLEM(text,
                 "source[src].retry.backoff_max (hookd.toml line 13): must be at least "
                 "source[src].retry.backoff_base (1h)");
}

TEST(ConfigValidate, ReportsAllProblemsAtOnce) {
  const auto outcome = load_config_string(
      "[server]\nlisten = \"x\"\nmax_connections = 0\n[metrics]\npath = \"m\"\n", MapEnvironment{});
  ASSERT_FALSE(outcome.has_value());
  EXPECT_EQ(outcome.error().code, ErrorCode::kInvalidArgument);
  EXPECT_PROBLEM(outcome.error().message, "invalid configuration (3 problems):");
}

TEST(ConfigValidate, ValidateWorksOnHandBuiltConfigs) {
  Config config;
  config.delivery.workers = 0;
  const auto problems = validate(config);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].key, "delivery.workers");
  EXPECT_EQ(problems[0].origin, "default");
}

}  // namespace
}  // namespace hookd::config

namespace hookd::config {
namespace {

TEST(ConfigValidate, AlertsNeedASignedHttpUrlAndKnownTypes) {
  EXPECT_EQ(problems_of(""), "");  // off by default
  EXPECT_EQ(problems_of(std::string("[alerts]\nurl = \"http://127.0.0.1:9/alerts\"\nsecret = \"") +
                        kWhsec + "\"\ntypes = [\"endpoint.disabled\", \"hookd.circuit.opened\"]\n"),
            "");
  const auto text = problems_of(
      "[alerts]\nurl = \"ftp://ops.example/alerts\"\ntypes = [\"message.attempt.exhausted\", "
      "\"endpoint.deleted\"]\n");
  EXPECT_PROBLEM(text, "alerts.url");
  EXPECT_PROBLEM(text, "alerts.secret (");
  EXPECT_PROBLEM(text, "is required with alerts.url");
  EXPECT_PROBLEM(text, "unknown alert type \"endpoint.deleted\"; known: message.attempt.exhausted");
  const auto bad_secret =
      problems_of("[alerts]\nurl = \"http://127.0.0.1:9/a\"\nsecret = \"plain-secret-value\"\n");
  EXPECT_PROBLEM(bad_secret, "must be whsec_<base64> (the value is not shown)");
  EXPECT_EQ(bad_secret.find("plain-secret-value"), std::string::npos);
  EXPECT_PROBLEM(problems_of("[alerts]\nsecret = \"" + std::string(kWhsec) + "\"\n"),
                 "is set but alerts.url is empty");
}

TEST(ConfigValidate, AlertsComeFromTheEnvironmentToo) {
  const MapEnvironment environment(
      {{"HOOKD_ALERTS_URL", "http://127.0.0.1:9/a"}, {"HOOKD_ALERTS_SECRET", kWhsec}});
  const auto outcome = load_config_detailed("", "hookd.toml", environment, {});
  ASSERT_TRUE(outcome.problems.empty()) << format_problems(outcome.problems);
  EXPECT_EQ(outcome.config.alerts.url, "http://127.0.0.1:9/a");
  EXPECT_EQ(outcome.config.alerts.secret, kWhsec);
}

}  // namespace
}  // namespace hookd::config
