// app/module_options: the Config → module options translation of the composition root. The
// [delivery] circuit breaker keys reach the breaker (A39), and the deprecated
// circuit_failure_threshold = 0 still turns it off; every other key lands in its field, and
// each source scheme becomes the verification the inbound gateway runs; each [[proxy]] becomes
// a gateway route.
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
  EXPECT_EQ(o->secret_rotation_grace, defaults.secret_rotation_grace);
  EXPECT_EQ(o->idempotency_ttl, defaults.idempotency_ttl);

  config.ssrf.allowed_subnets = {"300.0.0.0/8"};  // the config validator refuses it first
  const auto bad = api_options(config);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(bad.error().message.starts_with("allow-list: ")) << bad.error().message;
}

config::SourceConfig source(config::Scheme scheme) {
  config::SourceConfig c;
  c.name = "shop";
  c.scheme = scheme;
  c.tolerance = 120s;
  return c;
}

TEST(SourceSettings, CoreSchemesBecomeSchemeOptionsWithTheirDefaultEventId) {
  struct Case {
    config::Scheme scheme;
    SchemeKind kind;
    std::string event_id;
  };
  const std::vector<Case> cases = {
      {config::Scheme::kStandard, SchemeKind::kStandard, "webhook-id"},
      {config::Scheme::kStandardEd25519, SchemeKind::kStandardEd25519, "webhook-id"},
      {config::Scheme::kStripe, SchemeKind::kStripe, "/id"},
      {config::Scheme::kGithub, SchemeKind::kGithub, "X-GitHub-Delivery"},
      {config::Scheme::kHmacHexTs, SchemeKind::kHmacHexTs, ""},
      {config::Scheme::kHmac, SchemeKind::kHmac, "X-Webhook-Id"},  // its id_header
  };
  for (const auto& c : cases) {
    const auto s = source_settings(source(c.scheme));
    EXPECT_EQ(s.name, "shop");
    EXPECT_EQ(s.verification, inbound::Verification::kScheme) << s.event_id;
    EXPECT_EQ(s.scheme.kind, c.kind) << c.event_id;
    EXPECT_EQ(s.scheme.tolerance, 120s);
    EXPECT_EQ(s.event_id, c.event_id);
    EXPECT_FALSE(s.cloudevents_identity);
  }
  auto configured = source(config::Scheme::kStripe);
  configured.event_id = "/data/id";
  EXPECT_EQ(source_settings(configured).event_id, "/data/id");
}

TEST(SourceSettings, HmacSchemesCarryTheirHeadersAndTemplate) {
  auto hex = source(config::Scheme::kHmacHexTs);
  hex.hmac_hex_ts = {"X-Esign-Signature", "X-Esign-Timestamp"};
  const auto h = source_settings(hex).scheme.hmac_hex_ts;
  EXPECT_EQ(h.signature_header, "X-Esign-Signature");
  EXPECT_EQ(h.timestamp_header, "X-Esign-Timestamp");

  auto generic = source(config::Scheme::kHmac);
  generic.hmac.algorithm = config::HmacAlgorithm::kSha512;
  generic.hmac.encoding = config::SignatureEncoding::kBase64;
  generic.hmac.signature_header = "X-Sig";
  generic.hmac.signature_prefix = "sha512=";
  generic.hmac.content_template = "{id}.{body}";
  generic.hmac.timestamp_header = "";
  generic.hmac.id_header = "";
  generic.event_id = "/event";
  const auto s = source_settings(generic);
  EXPECT_EQ(s.scheme.hmac.algorithm, GenericHmacOptions::Algorithm::kSha512);
  EXPECT_EQ(s.scheme.hmac.encoding, GenericHmacOptions::Encoding::kBase64);
  EXPECT_EQ(s.scheme.hmac.signature_header, "X-Sig");
  EXPECT_EQ(s.scheme.hmac.signature_prefix, "sha512=");
  EXPECT_EQ(s.scheme.hmac.content_template, "{id}.{body}");
  EXPECT_EQ(s.scheme.hmac.timestamp_header, "");
  EXPECT_EQ(s.scheme.hmac.id_header, "");
  EXPECT_EQ(s.event_id, "/event");
  generic.event_id.clear();
  EXPECT_EQ(source_settings(generic).event_id, "");  // no location: Source::create refuses
}

TEST(SourceSettings, CloudEventsTokenAndNoneAreHookdsOwnChecks) {
  const auto ce = source_settings(source(config::Scheme::kCloudEvents));
  EXPECT_EQ(ce.verification, inbound::Verification::kCloudEvents);
  EXPECT_TRUE(ce.cloudevents_identity);
  EXPECT_EQ(ce.event_id, "ce-id");
  auto ce_with_id = source(config::Scheme::kCloudEvents);
  ce_with_id.event_id = "/data/id";
  EXPECT_FALSE(source_settings(ce_with_id).cloudevents_identity);
  EXPECT_EQ(source_settings(ce_with_id).event_id, "/data/id");

  auto token = source(config::Scheme::kToken);
  token.token = {"X-Token", "Token "};
  token.event_id = "X-Id";
  const auto t = source_settings(token);
  EXPECT_EQ(t.verification, inbound::Verification::kToken);
  EXPECT_EQ(t.token.header, "X-Token");
  EXPECT_EQ(t.token.prefix, "Token ");
  EXPECT_EQ(t.event_id, "X-Id");

  const auto none = source_settings(source(config::Scheme::kNone));
  EXPECT_EQ(none.verification, inbound::Verification::kNone);
  EXPECT_EQ(none.event_id, "");
}

TEST(SourceSettings, EveryOtherKeyIsCopied) {
  auto c = source(config::Scheme::kStandard);
  c.secrets = {"whsec_a", "whsec_b"};
  c.entity_key = "/e";
  c.sequence = "/n";
  c.depends_on = "/after";
  c.state = "/s";
  c.terminal_states = {"done"};
  c.business_key = "k:{/id}";
  c.business_key_guard = true;
  c.park_timeout = 90s;
  c.max_body_bytes = 2048;
  c.allowed_origins = {"events.example.com"};
  c.forward = {"http://127.0.0.1:9/app", "whsec_f", {"X-Trace"}};
  c.retry.max_attempts = 3;
  c.retry.max_age = 1h;
  const auto s = source_settings(c);
  EXPECT_EQ(s.secrets, c.secrets);
  EXPECT_EQ(s.entity_key, "/e");
  EXPECT_EQ(s.sequence, "/n");
  EXPECT_EQ(s.depends_on, "/after");
  EXPECT_EQ(s.state, "/s");
  EXPECT_EQ(s.terminal_states, c.terminal_states);
  EXPECT_EQ(s.business_key, "k:{/id}");
  EXPECT_TRUE(s.business_key_guard);
  EXPECT_EQ(s.park_timeout, 90s);
  EXPECT_EQ(s.max_body_bytes, 2048u);
  EXPECT_EQ(s.allowed_origins, c.allowed_origins);
  EXPECT_EQ(s.forward.url, "http://127.0.0.1:9/app");
  EXPECT_EQ(s.forward.secret, "whsec_f");
  EXPECT_EQ(s.forward.headers, c.forward.headers);
  EXPECT_EQ(s.retry.max_attempts, 3);
  EXPECT_EQ(s.retry.max_age, 1h);
  EXPECT_EQ(s.token.header, "Authorization");  // the defaults
  EXPECT_EQ(s.token.prefix, "Bearer ");
  const std::vector<config::SourceConfig> two = {c, source(config::Scheme::kGithub)};
  ASSERT_EQ(source_settings(two).size(), 2u);
  EXPECT_EQ(source_settings(two)[1].scheme.kind, SchemeKind::kGithub);
}

TEST(ForwarderOptions, DeliveryAndServerKeys) {
  config::Config config;
  config.delivery.lease_duration = 15s;
  config.delivery.workers = 0;
  config.delivery.claim_batch_size = 32;
  config.delivery.poll_interval = 500ms;
  config.delivery.timeout = 4s;
  config.delivery.inbound_forward_nice = 5;
  config.server.shutdown_grace = 6s;
  const auto o = forwarder_options(config, "hookd@n1");
  EXPECT_EQ(o.lease_owner, "hookd@n1/forwarder");
  EXPECT_EQ(o.lease, 15s);
  EXPECT_EQ(o.max_in_flight, 1);  // at least one
  EXPECT_EQ(o.claim_batch, 32);
  EXPECT_EQ(o.poll_interval, 500ms);
  EXPECT_EQ(o.timeout, 4s);
  EXPECT_EQ(o.stop_grace, 6s);
  EXPECT_EQ(o.nice, 5);
}

TEST(ServerOptions, ServerKeysOnTheListenAddress) {
  config::ServerConfig server;
  server.io_threads = 3;
  server.max_header_bytes = 1000;
  server.max_body_bytes = 2000;
  server.max_url_bytes = 300;
  server.max_connections = 7;
  server.read_timeout = 4s;
  server.idle_timeout = 5s;
  const auto o = server_options(server, ListenAddress{"::1", 8071});
  EXPECT_EQ(o.listen_address, "::1");
  EXPECT_EQ(o.port, 8071);
  EXPECT_EQ(o.io_threads, 3);
  EXPECT_EQ(o.max_header_bytes, 1000u);
  EXPECT_EQ(o.max_body_bytes, 2000u);
  EXPECT_EQ(o.max_target_bytes, 300u);
  EXPECT_EQ(o.max_connections, 7u);
  EXPECT_EQ(o.request_read_timeout, 4s);
  EXPECT_EQ(o.idle_timeout, 5s);
  server.io_threads = 0;
  EXPECT_GE(server_options(server, ListenAddress{"::1", 0}).io_threads, 2);
}

TEST(GatewayOptions, EveryProxyKeyLandsInItsRoute) {
  config::Config config;
  EXPECT_TRUE(gateway_options(config, "n1").routes.empty());
  config::ProxyConfig p;
  p.name = "esign";
  p.upstream = "https://esign.internal:8443/api/";
  p.methods = {"PUT"};
  p.require_key = false;
  p.tenant_header = "X-Tenant";
  p.ttl = 2h;
  p.timeout = 20s;
  p.connect_timeout = 2s;
  p.max_stored_body = 1500;
  p.max_response_body = 3000;
  p.status_url = "http://127.0.0.1:9000/ops/{key}";
  p.status_interval = 1min;
  config::ProxyConfig b;
  b.name = "b";
  b.upstream = "http://127.0.0.1:9001";
  config.proxies = {p, b};
  const auto o = gateway_options(config, "hookd@n1");
  EXPECT_EQ(o.owner, "hookd@n1/proxy");
  ASSERT_EQ(o.routes.size(), 2u);
  const auto& r = o.routes[0];
  EXPECT_EQ(r.name, "esign");
  EXPECT_EQ(r.upstream, "https://esign.internal:8443/api");  // the trailing "/" dropped
  EXPECT_EQ(r.methods, std::vector<std::string>{"PUT"});
  EXPECT_FALSE(r.require_key);
  EXPECT_EQ(r.tenant_header, "X-Tenant");
  EXPECT_EQ(r.ttl, 2h);
  EXPECT_EQ(r.timeout, 20s);
  EXPECT_EQ(r.connect_timeout, 2s);
  EXPECT_EQ(r.max_stored_body, 1500u);
  EXPECT_EQ(r.max_response_body, 3000u);
  EXPECT_EQ(r.status_url, "http://127.0.0.1:9000/ops/{key}");
  EXPECT_EQ(r.status_interval, 1min);
  EXPECT_EQ(o.routes[1].name, "b");
  EXPECT_EQ(o.routes[1].upstream, "http://127.0.0.1:9001");
  EXPECT_EQ(o.routes[1].methods, (std::vector<std::string>{"POST", "PATCH"}));
}

}  // namespace
}  // namespace hookd::app
