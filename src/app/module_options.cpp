#include "app/module_options.hpp"

#include <algorithm>
#include <thread>

#include "config/names.hpp"
#include "config/retry_policy.hpp"
#include "core/address_policy.hpp"

namespace hookd::app {
namespace {

int io_threads(int configured) {
  if (configured > 0) return configured;
  return static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
}

inbound::Verification verification(config::Scheme scheme) {
  switch (scheme) {
    case config::Scheme::kStandard:
    case config::Scheme::kStandardEd25519:
    case config::Scheme::kStripe:
    case config::Scheme::kGithub:
    case config::Scheme::kHmacHexTs:
    case config::Scheme::kHmac:
      return inbound::Verification::kScheme;
    case config::Scheme::kCloudEvents:
      return inbound::Verification::kCloudEvents;
    case config::Scheme::kToken:
      return inbound::Verification::kToken;
    case config::Scheme::kNone:
      return inbound::Verification::kNone;
  }
  return inbound::Verification::kNone;
}

// The core's scheme kind; kStandard (unused) for the kinds hookd checks itself.
SchemeKind scheme_kind(config::Scheme scheme) {
  switch (scheme) {
    case config::Scheme::kStandardEd25519:
      return SchemeKind::kStandardEd25519;
    case config::Scheme::kStripe:
      return SchemeKind::kStripe;
    case config::Scheme::kGithub:
      return SchemeKind::kGithub;
    case config::Scheme::kHmacHexTs:
      return SchemeKind::kHmacHexTs;
    case config::Scheme::kHmac:
      return SchemeKind::kHmac;
    case config::Scheme::kStandard:
    case config::Scheme::kCloudEvents:
    case config::Scheme::kToken:
    case config::Scheme::kNone:
      return SchemeKind::kStandard;
  }
  return SchemeKind::kStandard;
}

SchemeOptions scheme_options(const config::SourceConfig& c) {
  SchemeOptions o;
  o.kind = scheme_kind(c.scheme);
  o.tolerance = std::chrono::duration_cast<std::chrono::seconds>(c.tolerance);
  if (c.scheme == config::Scheme::kHmacHexTs) {
    o.hmac_hex_ts.signature_header = c.hmac_hex_ts.signature_header;
    o.hmac_hex_ts.timestamp_header = c.hmac_hex_ts.timestamp_header;
  }
  if (c.scheme == config::Scheme::kHmac) {
    o.hmac.algorithm = c.hmac.algorithm == config::HmacAlgorithm::kSha512
                           ? GenericHmacOptions::Algorithm::kSha512
                           : GenericHmacOptions::Algorithm::kSha256;
    o.hmac.encoding = c.hmac.encoding == config::SignatureEncoding::kBase64
                          ? GenericHmacOptions::Encoding::kBase64
                          : GenericHmacOptions::Encoding::kHex;
    o.hmac.signature_header = c.hmac.signature_header;
    o.hmac.signature_prefix = c.hmac.signature_prefix;
    o.hmac.content_template = c.hmac.content_template;
    o.hmac.timestamp_header = c.hmac.timestamp_header;
    o.hmac.id_header = c.hmac.id_header;
  }
  return o;
}

std::string event_id_location(const config::SourceConfig& c) {
  if (!c.event_id.empty()) return c.event_id;
  if (c.scheme == config::Scheme::kHmac && !c.hmac.id_header.empty()) return c.hmac.id_header;
  return std::string(config::default_event_id(c.scheme));
}

// "http://h:9000/" -> "http://h:9000": the gateway appends "/<rest>". Validation guarantees
// a host, so this never reaches into "http://".
std::string without_trailing_slashes(std::string url) {
  while (url.ends_with('/')) url.pop_back();
  return url;
}

proxy::ProxyRoute proxy_route(const config::ProxyConfig& c) {
  proxy::ProxyRoute r;
  r.name = c.name;
  r.upstream = without_trailing_slashes(c.upstream);
  r.methods = c.methods;
  r.require_key = c.require_key;
  r.tenant_header = c.tenant_header;
  r.ttl = c.ttl;
  r.timeout = c.timeout;
  r.connect_timeout = c.connect_timeout;
  r.max_stored_body = static_cast<std::size_t>(c.max_stored_body);
  r.max_response_body = static_cast<std::size_t>(c.max_response_body);
  r.status_url = c.status_url;
  r.status_interval = c.status_interval;
  return r;
}

}  // namespace

Result<api::ApiOptions> api_options(const config::Config& config) {
  auto policy = AddressPolicy::from_strings(config.ssrf.allowed_subnets);
  if (!policy) return std::unexpected(policy.error());
  api::ApiOptions o;
  for (const auto& t : config.auth.tokens) o.tokens.push_back({t.name, t.token});
  o.max_json_depth = config.server.max_json_depth;
  o.address_policy = std::move(*policy);
  for (const auto& p : config.proxies) o.proxy_key_ttls.emplace(p.name, p.ttl);
  return o;
}

outbound::DispatcherOptions dispatcher_options(const config::Config& config) {
  const auto& d = config.delivery;
  outbound::DispatcherOptions o;
  o.poll_interval = d.poll_interval;
  o.lease = d.lease_duration;
  o.claim_batch = std::max(1, d.claim_batch_size);
  o.max_held = std::max({2048, o.claim_batch * 4, d.workers * std::max(1, d.endpoint_concurrency)});
  o.connect_timeout = d.connect_timeout;
  o.total_timeout = d.timeout;
  o.body_excerpt_bytes = d.max_response_body_bytes;
  o.stop_grace = config.server.shutdown_grace;
  o.retry = config::retry_policy_config(d.retry);
  o.gate.max_in_flight = static_cast<std::uint32_t>(std::max(0, d.endpoint_concurrency));
  o.gate.rate.per_second = static_cast<std::uint32_t>(std::max(0, d.default_rate_limit));
  auto& breaker = o.gate.breaker;
  // circuit_failure_threshold is the deprecated key: only its 0 (no breaker) still means it.
  breaker.enabled = d.circuit_failure_rate > 0 && d.circuit_failure_threshold != 0;
  breaker.failure_rate = std::max(1, d.circuit_failure_rate) / 100.0;
  breaker.min_attempts = std::max(1, d.circuit_min_attempts);
  breaker.window = d.circuit_window;
  breaker.cooldown = d.circuit_cooldown;
  breaker.ramp_interval = d.circuit_ramp_interval;
  // A Retry-After sets the open circuit's next request, floored like the retry policy floors
  // it (and never later than the cool-down).
  breaker.min_probe_interval = std::min(o.retry.min_retry_after, d.circuit_cooldown);
  return o;
}

inbound::SourceSettings source_settings(const config::SourceConfig& c) {
  inbound::SourceSettings s;
  s.name = c.name;
  s.verification = verification(c.scheme);
  s.scheme = scheme_options(c);
  s.secrets = c.secrets;
  s.event_id = event_id_location(c);
  s.cloudevents_identity = c.scheme == config::Scheme::kCloudEvents && c.event_id.empty();
  s.entity_key = c.entity_key;
  s.sequence = c.sequence;
  s.depends_on = c.depends_on;
  s.state = c.state;
  s.terminal_states = c.terminal_states;
  s.business_key = c.business_key;
  s.business_key_guard = c.business_key_guard;
  s.park_timeout = c.park_timeout;
  s.max_body_bytes = c.max_body_bytes;
  s.allowed_origins = c.allowed_origins;
  s.forward = {c.forward.url, c.forward.secret, c.forward.headers};
  s.retry = config::retry_policy_config(c.retry);
  s.token = {c.token.header, c.token.prefix};
  return s;
}

std::vector<inbound::SourceSettings> source_settings(
    const std::vector<config::SourceConfig>& sources) {
  std::vector<inbound::SourceSettings> out;
  out.reserve(sources.size());
  for (const auto& c : sources) out.push_back(source_settings(c));
  return out;
}

inbound::ForwarderOptions forwarder_options(const config::Config& config,
                                            const std::string& node_id) {
  const auto& d = config.delivery;
  inbound::ForwarderOptions o;
  o.lease_owner = node_id + "/forwarder";
  o.lease = d.lease_duration;
  o.max_in_flight = std::max(1, d.workers);
  o.claim_batch = std::max(1, d.claim_batch_size);
  o.poll_interval = d.poll_interval;
  o.timeout = d.timeout;
  o.stop_grace = config.server.shutdown_grace;
  o.nice = d.inbound_forward_nice;
  return o;
}

proxy::GatewayOptions gateway_options(const config::Config& config, const std::string& node_id) {
  proxy::GatewayOptions o;
  o.owner = node_id + "/proxy";
  o.routes.reserve(config.proxies.size());
  for (const auto& c : config.proxies) o.routes.push_back(proxy_route(c));
  return o;
}

reconcile::ReconcileOptions reconcile_options(const config::ReconcileConfig& c,
                                              const config::ServerConfig& server,
                                              const std::string& node_id) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  reconcile::ReconcileOptions o;
  o.interval = duration_cast<milliseconds>(c.interval);
  o.feed_url = c.feed_url;
  o.feed_token = c.feed_token;
  o.items = c.items;
  o.item_id = c.item_id;
  o.item_body = c.item_body;
  o.item_time = c.item_time;
  o.next_cursor = c.next_cursor;
  o.done = c.done;
  o.cursor_param = c.cursor_param;
  o.since_param = c.since_param;
  o.since_format = c.since_format == config::SinceFormat::kRfc3339
                       ? reconcile::SinceFormat::kRfc3339
                       : reconcile::SinceFormat::kUnixSeconds;
  o.overlap = duration_cast<milliseconds>(c.overlap);
  o.status_url = c.status_url;
  o.status_state = c.status_state;
  o.stuck_after = duration_cast<milliseconds>(c.stuck_after);
  o.repair = c.repair == config::ReconcileRepair::kManual ? reconcile::RepairMode::kManual
                                                          : reconcile::RepairMode::kAuto;
  o.lease_owner = node_id + "/reconcile";
  o.max_pages_per_run = c.max_pages_per_run;
  o.max_page_bytes = static_cast<std::size_t>(c.max_page_bytes);
  o.page_timeout = duration_cast<milliseconds>(c.page_timeout);
  o.status_timeout = duration_cast<milliseconds>(c.status_timeout);
  o.max_stuck_per_run = c.max_stuck_per_run;
  o.lease = duration_cast<milliseconds>(c.lease);
  o.max_json_depth = server.max_json_depth;
  return o;
}

net::HttpServerOptions server_options(const config::ServerConfig& server,
                                      const ListenAddress& listen) {
  net::HttpServerOptions options;
  options.listen_address = listen.host;
  options.port = listen.port;
  options.io_threads = io_threads(server.io_threads);
  options.max_header_bytes = server.max_header_bytes;
  options.max_body_bytes = server.max_body_bytes;
  options.spool_max_body_bytes = server.max_proxy_body_bytes;  // under spool_prefix
  options.max_target_bytes = server.max_url_bytes;
  options.max_connections = static_cast<std::size_t>(server.max_connections);
  options.request_read_timeout = server.read_timeout;
  options.idle_timeout = server.idle_timeout;
  return options;
}

store::PurgerOptions purger_options(const config::Config& config) {
  using std::chrono::milliseconds;
  const config::RetentionConfig& r = config.retention;
  auto period = [](config::Duration d) -> std::optional<store::Millis> {
    if (d == config::Duration::zero()) return std::nullopt;
    return d.count();
  };
  store::PurgerOptions o;
  o.policy.delivered = period(r.delivered);
  o.policy.dead = period(r.dead);
  o.policy.inbox = period(r.inbox);
  o.policy.audit = period(r.audit);
  o.policy.expired_keys = r.expired_keys;
  o.interval = r.interval;
  o.batch_size = r.batch_size;
  o.pause = r.pause;
  config::Duration longest_overlap{0};
  for (const auto& source : config.sources) {
    if (source.reconcile) longest_overlap = std::max(longest_overlap, source.reconcile->overlap);
  }
  o.reconcile_margin = (longest_overlap + std::chrono::days(1)).count();
  return o;
}

}  // namespace hookd::app
