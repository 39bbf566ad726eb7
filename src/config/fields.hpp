// The one list of config keys: which TOML key (and so which environment variable) maps to
// which Config member. Readers (TOML file, environment) and the key lister walk these
// lists, so a key added here is parsed, overridable and checked against the docs at once.
//
// A visitor V provides:
//   v.field(key, T& member)          T: std::string, bool, int, Duration, an enum,
//                                       std::vector<std::string>, std::vector<Duration>,
//                                       std::vector<ApiToken>
//   v.bytes(key, std::uint64_t&)     a byte size
//   v.table(key, fn)                 a sub-table; fn(V& child)
//   v.optional_table(key, std::optional<T>& member, fn)
//                                    a sub-table that may be absent; fn(V& child, T& value).
//                                    Readers create the value when the table (or one of its
//                                    variables) is there; writers skip an absent one; listers
//                                    visit a default T.
// Thread-safety: stateless templates.
#pragma once

#include "config/config.hpp"

namespace hookd::config {

template <class V>
void visit_server(V& v, ServerConfig& s) {
  v.field("listen", s.listen);
  v.field("io_threads", s.io_threads);
  v.bytes("max_header_bytes", s.max_header_bytes);
  v.bytes("max_body_bytes", s.max_body_bytes);
  v.bytes("max_proxy_body_bytes", s.max_proxy_body_bytes);
  v.bytes("max_url_bytes", s.max_url_bytes);
  v.field("max_json_depth", s.max_json_depth);
  v.field("read_timeout", s.read_timeout);
  v.field("idle_timeout", s.idle_timeout);
  v.field("max_connections", s.max_connections);
  v.field("shutdown_grace", s.shutdown_grace);
}

template <class V>
void visit_database(V& v, DatabaseConfig& d) {
  v.field("url", d.url);
  v.field("sqlite_synchronous", d.sqlite_synchronous);
  v.field("pool_size", d.pool_size);
  v.field("busy_timeout", d.busy_timeout);
}

template <class V>
void visit_auth(V& v, AuthConfig& a) {
  v.field("tokens", a.tokens);
}

template <class V>
void visit_retry(V& v, RetryConfig& r) {
  v.field("max_attempts", r.max_attempts);
  v.field("max_age", r.max_age);
  v.field("backoff_base", r.backoff_base);
  v.field("backoff_max", r.backoff_max);
  v.field("schedule", r.schedule);
}

template <class V>
void visit_delivery(V& v, DeliveryConfig& d) {
  v.field("connect_timeout", d.connect_timeout);
  v.field("timeout", d.timeout);
  v.bytes("max_response_body_bytes", d.max_response_body_bytes);
  visit_retry(v, d.retry);  // flat in [delivery]
  v.field("endpoint_concurrency", d.endpoint_concurrency);
  v.field("default_rate_limit", d.default_rate_limit);
  v.field("circuit_failure_rate", d.circuit_failure_rate);
  v.field("circuit_min_attempts", d.circuit_min_attempts);
  v.field("circuit_window", d.circuit_window);
  v.field("circuit_cooldown", d.circuit_cooldown);
  v.field("circuit_ramp_interval", d.circuit_ramp_interval);
  v.field("circuit_failure_threshold", d.circuit_failure_threshold);
  v.field("lease_duration", d.lease_duration);
  v.field("claim_batch_size", d.claim_batch_size);
  v.field("poll_interval", d.poll_interval);
  v.field("workers", d.workers);
  v.field("inbound_forward_nice", d.inbound_forward_nice);
}

template <class V>
void visit_ssrf(V& v, SsrfConfig& s) {
  v.field("allowed_subnets", s.allowed_subnets);
}

template <class V>
void visit_logging(V& v, LoggingConfig& l) {
  v.field("level", l.level);
  v.field("format", l.format);
  v.field("masked_pointers", l.masked_pointers);
}

template <class V>
void visit_metrics(V& v, MetricsConfig& m) {
  v.field("enabled", m.enabled);
  v.field("path", m.path);
}

template <class V>
void visit_alerts(V& v, AlertsConfig& a) {
  v.field("url", a.url);
  v.field("secret", a.secret);
  v.field("types", a.types);
}

template <class V>
void visit_retention(V& v, RetentionConfig& r) {
  v.field("delivered", r.delivered);
  v.field("dead", r.dead);
  v.field("inbox", r.inbox);
  v.field("audit", r.audit);
  v.field("expired_keys", r.expired_keys);
  v.field("interval", r.interval);
  v.field("batch_size", r.batch_size);
  v.field("pause", r.pause);
}

template <class V>
void visit_reconcile(V& v, ReconcileConfig& r) {
  v.field("interval", r.interval);
  v.field("feed_url", r.feed_url);
  v.field("feed_token", r.feed_token);
  v.field("items", r.items);
  v.field("item_id", r.item_id);
  v.field("item_body", r.item_body);
  v.field("item_time", r.item_time);
  v.field("next_cursor", r.next_cursor);
  v.field("done", r.done);
  v.field("cursor_param", r.cursor_param);
  v.field("since_param", r.since_param);
  v.field("since_format", r.since_format);
  v.field("overlap", r.overlap);
  v.field("status_url", r.status_url);
  v.field("status_state", r.status_state);
  v.field("stuck_after", r.stuck_after);
  v.field("repair", r.repair);
  v.field("max_pages_per_run", r.max_pages_per_run);
  v.bytes("max_page_bytes", r.max_page_bytes);
  v.field("page_timeout", r.page_timeout);
  v.field("status_timeout", r.status_timeout);
  v.field("max_stuck_per_run", r.max_stuck_per_run);
  v.field("lease", r.lease);
}

// Every key of one [[source]] except `name`, which identifies the source (and its
// environment variables) and so is read separately.
template <class V>
void visit_source(V& v, SourceConfig& s) {
  v.field("scheme", s.scheme);
  v.field("secrets", s.secrets);
  v.field("tolerance", s.tolerance);
  v.field("event_id", s.event_id);
  v.field("entity_key", s.entity_key);
  v.field("sequence", s.sequence);
  v.field("depends_on", s.depends_on);
  v.field("state", s.state);
  v.field("terminal_states", s.terminal_states);
  v.field("business_key", s.business_key);
  v.field("business_key_guard", s.business_key_guard);
  v.field("park_timeout", s.park_timeout);
  v.bytes("max_body_bytes", s.max_body_bytes);
  v.field("allowed_origins", s.allowed_origins);
  v.table("forward", [&](V& t) {
    t.field("url", s.forward.url);
    t.field("secret", s.forward.secret);
    t.field("headers", s.forward.headers);
  });
  v.table("retry", [&](V& t) { visit_retry(t, s.retry); });
  v.table("hmac_hex_ts", [&](V& t) {
    t.field("signature_header", s.hmac_hex_ts.signature_header);
    t.field("timestamp_header", s.hmac_hex_ts.timestamp_header);
  });
  v.table("hmac", [&](V& t) {
    t.field("algorithm", s.hmac.algorithm);
    t.field("encoding", s.hmac.encoding);
    t.field("signature_header", s.hmac.signature_header);
    t.field("signature_prefix", s.hmac.signature_prefix);
    t.field("template", s.hmac.content_template);
    t.field("timestamp_header", s.hmac.timestamp_header);
    t.field("id_header", s.hmac.id_header);
  });
  v.table("token", [&](V& t) {
    t.field("header", s.token.header);
    t.field("prefix", s.token.prefix);
  });
  v.optional_table("reconcile", s.reconcile,
                   [](V& t, ReconcileConfig& r) { visit_reconcile(t, r); });
}

// Every key of one [[proxy]] except `name` (read separately, as for [[source]]).
template <class V>
void visit_proxy(V& v, ProxyConfig& p) {
  v.field("upstream", p.upstream);
  v.field("methods", p.methods);
  v.field("require_key", p.require_key);
  v.field("tenant_header", p.tenant_header);
  v.field("ttl", p.ttl);
  v.field("timeout", p.timeout);
  v.field("connect_timeout", p.connect_timeout);
  v.bytes("max_stored_body", p.max_stored_body);
  v.bytes("max_response_body", p.max_response_body);
  v.field("status_url", p.status_url);
  v.field("status_interval", p.status_interval);
}

// The plain sections in file order; [[source]] and [[proxy]] are handled by the readers.
template <class V>
void visit_sections(V& v, Config& c) {
  v.table("server", [&](V& t) { visit_server(t, c.server); });
  v.table("database", [&](V& t) { visit_database(t, c.database); });
  v.table("auth", [&](V& t) { visit_auth(t, c.auth); });
  v.table("delivery", [&](V& t) { visit_delivery(t, c.delivery); });
  v.table("ssrf", [&](V& t) { visit_ssrf(t, c.ssrf); });
  v.table("logging", [&](V& t) { visit_logging(t, c.logging); });
  v.table("metrics", [&](V& t) { visit_metrics(t, c.metrics); });
  v.table("alerts", [&](V& t) { visit_alerts(t, c.alerts); });
  v.table("retention", [&](V& t) { visit_retention(t, c.retention); });
}

}  // namespace hookd::config
