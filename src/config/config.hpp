// Config: hookd's whole configuration as a plain struct tree, one struct per TOML section.
// Every member holds its documented default, so a default-constructed Config is what
// `hookd serve` runs with when there is no file, no environment and no flags.
// Loading and validation live in config/loader.hpp; docs/configuration.md lists every key.
// Thread-safety: plain value types; share a loaded Config read-only.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hookd::config {

// Durations are written as strings with a unit ("500ms", "3s", "5m", "1h30m", "2d").
using Duration = std::chrono::milliseconds;

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;
inline constexpr std::uint64_t kGiB = 1024 * kMiB;

// [server]: the HTTP listener (API, inbound /in/<name>, console, metrics).
struct ServerConfig {
  std::string listen = "127.0.0.1:8071";       // host:port, IPv6 as [::1]:8071; port 0 = any
  int io_threads = 0;                          // 0 = one per CPU core
  std::uint64_t max_header_bytes = 16 * kKiB;  // request line + headers; larger -> 431
  std::uint64_t max_body_bytes = 1 * kMiB;     // larger -> 413
  std::uint64_t max_url_bytes = 8 * kKiB;      // request target; larger -> 414
  int max_json_depth = 64;                     // nesting of JSON bodies hookd parses; deeper -> 400
  // Request bodies under /proxy/ (when a [[proxy]] exists), instead of max_body_bytes:
  // beyond 64 KiB spooled to a temporary file, not held in memory; larger -> 413.
  std::uint64_t max_proxy_body_bytes = 64 * kMiB;
  Duration read_timeout = std::chrono::seconds(30);  // whole request, against slow clients
  Duration idle_timeout = std::chrono::seconds(60);  // keep-alive between requests
  int max_connections = 1024;
  Duration shutdown_grace = std::chrono::seconds(30);  // finish in-flight work on SIGTERM
};

enum class SqliteSynchronous { kNormal, kFull, kExtra };

enum class DatabaseKind { kSqlite, kPostgres };

// [database]
struct DatabaseConfig {
  // A file path for SQLite (":memory:" for tests), or postgresql://... / postgres://...
  std::string url = "./hookd.db";
  SqliteSynchronous sqlite_synchronous = SqliteSynchronous::kFull;
  int pool_size = 8;
  Duration busy_timeout = std::chrono::seconds(5);

  DatabaseKind kind() const;
};

// One API bearer token; the name is what the audit log records as "who".
struct ApiToken {
  std::string name;
  std::string token;
};

// [auth]
struct AuthConfig {
  std::vector<ApiToken> tokens;
};

// Retry policy: exponential backoff with jitter, or an explicit schedule.
struct RetryConfig {
  int max_attempts = 12;                            // including the first attempt
  Duration max_age = std::chrono::hours(24);        // then dead-letter
  Duration backoff_base = std::chrono::seconds(5);  // delay = min(base * 2^n, max) * jitter
  Duration backoff_max = std::chrono::hours(1);
  std::vector<Duration> schedule;  // if set: delay before retry 1, 2, ...; last one repeats
};

// [delivery]: defaults for outbound deliveries (endpoints and inbound forwards).
struct DeliveryConfig {
  Duration connect_timeout = std::chrono::seconds(3);
  Duration timeout = std::chrono::seconds(10);       // whole attempt, connect included
  std::uint64_t max_response_body_bytes = 4 * kKiB;  // kept in the attempt log
  RetryConfig retry;
  int endpoint_concurrency = 32;  // in-flight attempts per endpoint
  int default_rate_limit = 0;     // messages/s per endpoint without rateLimit; 0 = unlimited
  // Circuit breaker (docs/configuration.md): opens when, over circuit_window, at least
  // circuit_min_attempts attempts ended and circuit_failure_rate % of them failed (going on
  // for half the window at least); open: one request per circuit_cooldown (or per the
  // failing answer's Retry-After); on recovery the concurrency doubles every
  // circuit_ramp_interval from 1 up to endpoint_concurrency.
  int circuit_failure_rate = 90;  // percent; 0 = no breaker
  int circuit_min_attempts = 20;
  Duration circuit_window = std::chrono::seconds(30);
  Duration circuit_cooldown = std::chrono::seconds(30);
  Duration circuit_ramp_interval = std::chrono::seconds(1);
  int circuit_failure_threshold = -1;  // deprecated (was: consecutive failures); 0 = no breaker
  Duration lease_duration = std::chrono::seconds(60);
  int claim_batch_size = 256;
  Duration poll_interval = std::chrono::seconds(1);
  int workers = 16;
  // Nice level of the inbound forwarding threads: when the CPU is short, acknowledging
  // providers' calls (verify, store durably, 200) goes first; forwards catch up after.
  int inbound_forward_nice = 10;
};

// [ssrf]
struct SsrfConfig {
  std::vector<std::string> allowed_subnets;  // CIDR, e.g. "10.1.0.0/16", "fd00::/8"
};

// Inbound verification schemes (same names as `hookd sign/verify --scheme`).
enum class Scheme {
  kStandard,
  kStandardEd25519,
  kStripe,
  kGithub,
  kHmacHexTs,
  kHmac,
  kCloudEvents,
  kToken,
  kNone,
};

enum class HmacAlgorithm { kSha256, kSha512 };
enum class SignatureEncoding { kHex, kBase64 };

// [source.hmac_hex_ts]: the seeds' hex HMAC-SHA256 over "{timestamp}.{body}".
struct HmacHexTsConfig {
  std::string signature_header = "X-Signature";
  std::string timestamp_header = "X-Timestamp";
};

// [source.hmac]: a generic HMAC scheme.
struct HmacConfig {
  HmacAlgorithm algorithm = HmacAlgorithm::kSha256;
  SignatureEncoding encoding = SignatureEncoding::kHex;
  std::string signature_header = "X-Signature";
  std::string signature_prefix;                         // e.g. "sha256="
  std::string content_template = "{timestamp}.{body}";  // TOML key: template
  std::string timestamp_header = "X-Timestamp";         // "" = no timestamp, no replay window
  std::string id_header = "X-Webhook-Id";               // "" = none
};

// [source.token]: a shared token in a header (scheme = "token").
struct TokenConfig {
  std::string header = "Authorization";
  std::string prefix = "Bearer ";  // stripped before comparing
};

// [source.forward]: where verified events go (delivered like outbound messages).
struct ForwardConfig {
  std::string url;                   // http(s) URL of the app
  std::string secret;                // whsec_...: hookd signs forwards with Standard Webhooks
  std::vector<std::string> headers;  // inbound headers copied onto the forward
};

enum class ReconcileRepair { kAuto, kManual };
enum class SinceFormat { kUnix, kRfc3339 };  // how since_param's time is written

// [source.reconcile]: the source's reconciler (docs/reconciliation.md): it pages a feed of the
// provider's events and inserts what hookd never received, and asks the provider about
// entities stuck in a non-terminal state. JSON pointers are RFC 6901 ("" where allowed = not
// used). At least one of feed_url and status_url is set.
struct ReconcileConfig {
  Duration interval = std::chrono::minutes(5);  // between runs; 0 = only on demand (API, CLI)
  std::string feed_url;         // a hookd feed, or any paged JSON list of the provider's events
  std::string feed_token;       // sent as Authorization: Bearer (a secret)
  std::string items = "/data";  // the page's list of items
  std::string item_id = "/id";  // in each item: the event id (the dedup key)
  std::string item_body = "/payload";     // in each item: the event's body; "" = the item itself
  std::string item_time = "/timestamp";   // RFC 3339 or unix seconds; "" = none (no watermark)
  std::string next_cursor = "/iterator";  // in the page: the next page's cursor
  std::string done = "/done";             // in the page: true when there is no more now
  std::string cursor_param = "iterator";  // the query parameter the cursor is sent in
  // since_param set: every run starts at since_param=<watermark - overlap> (a time-filtered
  // feed such as Stripe's created[gte]) instead of the stored cursor; "" = resume at the cursor.
  std::string since_param;
  SinceFormat since_format = SinceFormat::kUnix;  // unix seconds or RFC 3339
  Duration overlap = std::chrono::minutes(10);    // how far behind the watermark a run starts
  std::string status_url;  // "" = no stuck check; e.g. "http://provider/contracts/{entity}"
  std::string status_state = "/status";             // the state in the status answer
  Duration stuck_after = std::chrono::minutes(30);  // non-terminal this long = checked
  ReconcileRepair repair = ReconcileRepair::kAuto;  // manual: record, a person repairs
  int max_pages_per_run = 10000;
  std::uint64_t max_page_bytes = 16 * kMiB;
  Duration page_timeout = std::chrono::seconds(30);    // one feed page, connect included
  Duration status_timeout = std::chrono::seconds(10);  // one status_url call
  int max_stuck_per_run = 1000;                        // entities checked per run
  Duration lease = std::chrono::seconds(60);           // one run per source across nodes; renewed
};

// [[source]]: one inbound source, served at /in/<name>.
struct SourceConfig {
  std::string name;
  Scheme scheme = Scheme::kStandard;
  std::vector<std::string> secrets;  // several during a rotation
  Duration tolerance = std::chrono::seconds(300);
  std::string event_id;    // header name, or JSON pointer ("/id"); "" = the scheme's default
  std::string entity_key;  // JSON pointer; events per entity go in order
  std::string sequence;    // JSON pointer to a number; stale ones are dropped
  std::string depends_on;  // JSON pointer to an id or a list of ids
  std::string state;       // JSON pointer to the entity's state
  std::vector<std::string> terminal_states;
  std::string business_key;                          // template, e.g. "delivery:{/data/order_id}"
  bool business_key_guard = false;                   // also dedup by business key before forwarding
  Duration park_timeout = std::chrono::minutes(15);  // then reconciliation takes over
  std::uint64_t max_body_bytes = 0;          // after loading: server.max_body_bytes if unset
  std::vector<std::string> allowed_origins;  // CloudEvents WebHook-Request-Origin values
  ForwardConfig forward;
  RetryConfig retry;  // after loading: [delivery] values if unset
  HmacHexTsConfig hmac_hex_ts;
  HmacConfig hmac;
  TokenConfig token;
  std::optional<ReconcileConfig> reconcile;  // [source.reconcile]; nullopt = no reconciler
};

// [[proxy]]: one idempotency gateway route (docs/proxy.md): requests to /proxy/<name>/<rest>
// go to upstream + /<rest>, and a keyed method's answer is recorded per Idempotency-Key.
struct ProxyConfig {
  std::string name;
  std::string upstream;  // http(s)://host[:port][/base]; set by the operator, not SSRF-checked
  std::vector<std::string> methods{"POST", "PATCH"};  // keyed; other methods pass through
  bool require_key = true;                            // keyed method without a key -> 400
  std::string tenant_header = "Authorization";        // keys per SHA-256 of it; "" = one tenant
  Duration ttl = std::chrono::hours(24);              // completed keys expire after this
  Duration timeout = std::chrono::seconds(10);        // upstream call, connect included
  Duration connect_timeout = std::chrono::seconds(3);
  std::uint64_t max_stored_body = 1 * kMiB;     // larger answers are not replayable
  std::uint64_t max_response_body = 16 * kMiB;  // held in memory; larger -> 502, not replayable
  std::string status_url;                       // "" = none; e.g. "http://127.0.0.1:9000/ops/{key}"
  Duration status_interval = std::chrono::seconds(30);  // unknown keys' status_url polls
};

enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError, kOff };
enum class LogFormat { kJson, kText };

// [logging]
struct LoggingConfig {
  LogLevel level = LogLevel::kInfo;
  LogFormat format = LogFormat::kJson;
  std::vector<std::string> masked_pointers;  // JSON pointers masked in logs and the console
};

// [metrics]
struct MetricsConfig {
  bool enabled = true;
  std::string path = "/metrics";
};

// [alerts]: operational webhooks (SPEC §7, A41), delivered like any message (retries, its
// own dead letters) to one endpoint hookd keeps in its application "hookd-alerts".
struct AlertsConfig {
  std::string url;                 // "" = alerts are counted and logged, not sent
  std::string secret;              // whsec_<base64>, required with url
  std::vector<std::string> types;  // names from core/alert_types.hpp; empty = every type
};

// [retention] (docs/retention.md): how long settled data is kept, then purged in the
// background in small batches. A period of "0" keeps that kind forever.
struct RetentionConfig {
  Duration delivered = std::chrono::days(30);  // messages whose deliveries all succeeded
  Duration dead = std::chrono::days(90);       // dead letters, outbound and inbound
  Duration inbox = std::chrono::days(30);      // final inbound events
  Duration audit = std::chrono::days(365);     // audit log entries
  bool expired_keys = true;  // completed idempotency / gateway keys once past their ttl
  Duration interval = std::chrono::minutes(10);    // between purge passes; 0 = never purge
  int batch_size = 500;                            // rows per batch (one short transaction)
  Duration pause = std::chrono::milliseconds(20);  // between batches: the writer's turn
};

struct Config {
  ServerConfig server;
  DatabaseConfig database;
  AuthConfig auth;
  DeliveryConfig delivery;
  SsrfConfig ssrf;
  std::vector<SourceConfig> sources;  // TOML: [[source]]
  std::vector<ProxyConfig> proxies;   // TOML: [[proxy]]
  LoggingConfig logging;
  MetricsConfig metrics;
  AlertsConfig alerts;
  RetentionConfig retention;
};

}  // namespace hookd::config
