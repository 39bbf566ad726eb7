// Validation of [[source]] tables: names, scheme-specific secrets and options, JSON
// pointers, templates, forward target, [source.reconcile]. Secret values never appear in a
// message.
#include <cctype>
#include <chrono>

#include "config/checker.hpp"
#include "config/names.hpp"
#include "config/readers.hpp"

namespace hookd::config {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The secret's format per scheme; messages describe the format, never the value.
void check_secret_format(Checker& c, const std::string& key, Scheme scheme,
                         std::string_view secret) {
  const std::string item = key + ": ";
  if (secret.empty()) {
    c.problem(key, "a secret is empty");
  } else if (scheme == Scheme::kStandard) {
    if (!secret.starts_with("whsec_")) {
      c.problem(
          key,
          "scheme \"standard\" needs secrets of the form whsec_<base64> (the value is not shown)");
    } else if (auto ok = check_base64(secret.substr(6)); !ok) {
      c.problem(key, "a whsec_ secret is malformed: " + ok.error() + " (the value is not shown)");
    }
  } else if (scheme == Scheme::kStandardEd25519) {
    if (!secret.starts_with("whpk_") && !secret.starts_with("whsk_")) {
      c.problem(
          key,
          "scheme \"standard-ed25519\" needs whpk_<base64 public key> (or whsk_<base64 seed>) "
          "secrets (the value is not shown)");
    } else if (auto ok = check_base64(secret.substr(5), 32); !ok) {
      c.problem(key, "an Ed25519 key is malformed: " + ok.error() + " (the value is not shown)");
    }
  }
}

void check_secrets(Checker& c, const std::string& path, const SourceConfig& s) {
  const std::string key = path + "secrets";
  if (s.scheme == Scheme::kNone) {
    if (!s.secrets.empty())
      c.problem(key, "scheme \"none\" verifies nothing; remove the secrets or choose a scheme");
    return;
  }
  if (s.secrets.empty() && s.scheme != Scheme::kCloudEvents) {
    c.problem(key, "scheme \"" + std::string(enum_name(s.scheme)) + "\" needs at least one secret");
  }
  for (const auto& secret : s.secrets) check_secret_format(c, key, s.scheme, secret);
}

void check_event_id(Checker& c, const std::string& path, const SourceConfig& s) {
  const std::string key = path + "event_id";
  if (s.event_id.empty()) {
    const bool hmac_id = s.scheme == Scheme::kHmac && !s.hmac.id_header.empty();
    if (default_event_id(s.scheme).empty() && !hmac_id) {
      c.problem(key,
                "scheme \"" + std::string(enum_name(s.scheme)) +
                    "\" has no event id of its own; set "
                    "event_id to a header name or a JSON pointer such as \"/id\" (used for dedup)");
    }
  } else if (s.event_id.starts_with('/')) {
    c.check(key, check_json_pointer(s.event_id));
  } else {
    c.check(key, check_header_name(s.event_id));
  }
}

void check_ordering(Checker& c, const std::string& path, const SourceConfig& s) {
  for (const auto& [name, value] : {std::pair{"entity_key", &s.entity_key},
                                    {"sequence", &s.sequence},
                                    {"depends_on", &s.depends_on},
                                    {"state", &s.state}}) {
    if (!value->empty()) c.check(path + name, check_json_pointer(*value));
  }
  const auto needs_entity = [&](const char* key, bool used) {
    if (used && s.entity_key.empty()) {
      c.problem(path + key,
                std::string("needs ") + path + "entity_key: order and state are kept per entity");
    }
  };
  needs_entity("sequence", !s.sequence.empty());
  needs_entity("state", !s.state.empty());
  if (!s.terminal_states.empty() && s.state.empty()) {
    c.problem(path + "terminal_states",
              "needs " + path + "state (the JSON pointer to the entity's state)");
  }
  if (!s.business_key.empty())
    c.check(path + "business_key", check_business_key_template(s.business_key));
  if (s.business_key_guard && s.business_key.empty()) {
    c.problem(path + "business_key_guard",
              "needs " + path + "business_key (the template to guard by)");
  }
  c.range(path + "park_timeout", s.park_timeout, seconds(1), days(30));
}

void check_forward(Checker& c, const std::string& path, const ForwardConfig& f) {
  if (f.url.empty()) {
    c.problem(path + "forward.url",
              "is required: the app URL that verified events are forwarded to");
  } else {
    c.check(path + "forward.url", check_http_url(f.url));
  }
  if (f.secret.empty()) {
    c.problem(path + "forward.secret",
              "is required: the whsec_<base64> secret hookd signs forwards with");
  } else if (!f.secret.starts_with("whsec_") || !check_base64(f.secret.substr(6))) {
    c.problem(path + "forward.secret", "must be whsec_<base64> (the value is not shown)");
  }
  for (const auto& header : f.headers) c.check(path + "forward.headers", check_header_name(header));
}

// Options of one scheme set on a source that uses another are mistakes, not no-ops.
void check_scheme_tables(Checker& c, const std::string& path, const SourceConfig& s) {
  const auto only_for = [&](const char* table, bool allowed, const char* schemes) {
    if (!allowed && c.origins().first_under(path + table + ".")) {
      c.problem_under(path + table, std::string("is only used with scheme = ") + schemes +
                                        ", but this source has scheme = \"" +
                                        std::string(enum_name(s.scheme)) + "\"");
    }
  };
  only_for("hmac_hex_ts", s.scheme == Scheme::kHmacHexTs, "\"hmac-hex-ts\"");
  only_for("hmac", s.scheme == Scheme::kHmac, "\"hmac\"");
  only_for("token", s.scheme == Scheme::kToken || s.scheme == Scheme::kCloudEvents,
           "\"token\" or \"cloudevents\"");
  if (!s.allowed_origins.empty() && s.scheme != Scheme::kCloudEvents) {
    c.problem(path + "allowed_origins", "is only used with scheme = \"cloudevents\"");
  }
  if (s.scheme == Scheme::kHmacHexTs) {
    c.check(path + "hmac_hex_ts.signature_header",
            check_header_name(s.hmac_hex_ts.signature_header));
    c.check(path + "hmac_hex_ts.timestamp_header",
            check_header_name(s.hmac_hex_ts.timestamp_header));
  }
  if (s.scheme == Scheme::kToken) c.check(path + "token.header", check_header_name(s.token.header));
}

void check_hmac(Checker& c, const std::string& path, const HmacConfig& h) {
  const std::string p = path + "hmac.";
  c.check(p + "signature_header", check_header_name(h.signature_header));
  if (!h.timestamp_header.empty())
    c.check(p + "timestamp_header", check_header_name(h.timestamp_header));
  if (!h.id_header.empty()) c.check(p + "id_header", check_header_name(h.id_header));
  if (auto ok = check_hmac_template(h.content_template); !ok) {
    c.problem(p + "template", ok.error());
    return;
  }
  const bool signs_ts = contains(h.content_template, "{timestamp}");
  if (signs_ts && h.timestamp_header.empty()) {
    c.problem(p + "template", "uses {timestamp} but " + p + "timestamp_header is empty");
  } else if (!signs_ts && !h.timestamp_header.empty()) {
    c.problem(p + "timestamp_header",
              "is set but the template does not sign {timestamp}; an unsigned "
              "timestamp defeats the replay window (add {timestamp} or clear the header)");
  }
  if (contains(h.content_template, "{id}") && h.id_header.empty()) {
    c.problem(p + "template", "uses {id} but " + p + "id_header is empty");
  }
}

// A query parameter name: RFC 3986 unreserved characters, plus `also` (e.g. the brackets of
// Stripe's created[gte], which hookd percent-encodes).
bool is_query_name(std::string_view text, std::string_view also = "") {
  if (text.empty()) return false;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (!std::isalnum(c) && ch != '-' && ch != '.' && ch != '_' && ch != '~' &&
        also.find(ch) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

// since_param: a query parameter name, and a watermark to start from (item_time).
void check_reconcile_since(Checker& c, const std::string& p, const ReconcileConfig& r) {
  if (r.since_param.empty()) return;
  if (!is_query_name(r.since_param, "[]")) {
    c.problem(p + "since_param",
              "must be a query parameter name (letters, digits, -._~[]), got \"" + r.since_param +
                  "\"");
  }
  if (r.feed_url.empty()) {
    c.problem(p + "since_param", "is set but feed_url is empty: there is no feed to send it to");
  }
  if (r.item_time.empty()) {
    c.problem(p + "since_param",
              "needs item_time: the watermark it starts from is the newest item_time read");
  }
}

// The JSON pointers of [source.reconcile]: each "" or RFC 6901; the feed's item id is needed
// to dedup, the status answer's state to compare.
void check_reconcile_pointers(Checker& c, const std::string& p, const ReconcileConfig& r) {
  for (const auto& [name, value] : {std::pair{"items", &r.items},
                                    {"item_id", &r.item_id},
                                    {"item_body", &r.item_body},
                                    {"item_time", &r.item_time},
                                    {"next_cursor", &r.next_cursor},
                                    {"done", &r.done},
                                    {"status_state", &r.status_state}}) {
    if (!value->empty()) c.check(p + name, check_json_pointer(*value));
  }
  if (!r.feed_url.empty() && r.item_id.empty()) {
    c.problem(p + "item_id", "is required with feed_url: the item's event id (the dedup key)");
  }
  if (!r.feed_url.empty() && !r.next_cursor.empty() && !is_query_name(r.cursor_param)) {
    c.problem(p + "cursor_param", "must be a query parameter name (letters, digits, -._~), got \"" +
                                      r.cursor_param + "\"");
  }
  if (!r.status_url.empty() && r.status_state.empty()) {
    c.problem(p + "status_state", "is required with status_url: where the state is in the answer");
  }
}

void check_reconcile_feed(Checker& c, const std::string& p, const ReconcileConfig& r) {
  if (!r.feed_url.empty()) c.check(p + "feed_url", check_http_url_without_user_info(r.feed_url));
  if (r.feed_token.find_first_of(" \t\r\n") != std::string::npos) {
    c.problem(p + "feed_token", "contains whitespace (the value is not shown)");
  }
  if (!r.feed_token.empty() && r.feed_url.empty()) {
    c.problem(p + "feed_token", "is set but feed_url is empty: there is no feed to send it to");
  }
}

void check_reconcile_status(Checker& c, const std::string& path, const SourceConfig& s) {
  const std::string p = path + "reconcile.";
  const ReconcileConfig& r = *s.reconcile;
  if (r.status_url.empty()) return;
  if (auto ok = check_http_url_without_user_info(r.status_url); !ok) {
    c.problem(p + "status_url", ok.error());
  } else {
    c.check(p + "status_url",
            check_url_template(r.status_url, "{entity}", "http://provider/contracts/{entity}"));
  }
  for (const auto& [name, value] : {std::pair{"entity_key", &s.entity_key}, {"state", &s.state}}) {
    if (value->empty()) {
      c.problem(p + "status_url", std::string("needs ") + path + name +
                                      ": stuck entities are found by their key and state");
    }
  }
}

void check_reconcile_limits(Checker& c, const std::string& p, const ReconcileConfig& r) {
  if (r.interval != Duration::zero()) c.range(p + "interval", r.interval, seconds(10), days(7));
  c.range(p + "overlap", r.overlap, Duration::zero(), days(30));
  c.range(p + "stuck_after", r.stuck_after, seconds(1), days(365));
  c.range(p + "max_pages_per_run", r.max_pages_per_run, 1, 1'000'000);
  c.size_range(p + "max_page_bytes", r.max_page_bytes, kKiB, 256 * kMiB);
  c.range(p + "page_timeout", r.page_timeout, seconds(1), minutes(10));
  c.range(p + "status_timeout", r.status_timeout, seconds(1), minutes(10));
  c.range(p + "max_stuck_per_run", r.max_stuck_per_run, 1, 100'000);
  c.range(p + "lease", r.lease, seconds(10), hours(1));
  if (r.lease <= r.page_timeout) {
    c.problem(p + "lease", "must be longer than " + p +
                               "page_timeout (the lease is renewed after each page), got " +
                               Checker::quote(format_duration(r.lease)) +
                               " <= " + Checker::quote(format_duration(r.page_timeout)));
  }
}

// [source.reconcile], when present.
void check_reconcile(Checker& c, const std::string& path, const SourceConfig& s) {
  if (!s.reconcile) return;
  const std::string p = path + "reconcile.";
  const ReconcileConfig& r = *s.reconcile;
  if (r.feed_url.empty() && r.status_url.empty()) {
    c.problem_under(path + "reconcile",
                    "needs feed_url (a feed of the provider's events) or status_url (the "
                    "provider's state of one entity), or both");
  }
  check_reconcile_feed(c, p, r);
  check_reconcile_pointers(c, p, r);
  check_reconcile_since(c, p, r);
  check_reconcile_status(c, path, s);
  check_reconcile_limits(c, p, r);
}

void check_source(Checker& c, const std::string& path, const SourceConfig& s) {
  check_secrets(c, path, s);
  c.range(path + "tolerance", s.tolerance, seconds(1), days(1));
  check_event_id(c, path, s);
  check_ordering(c, path, s);
  if (c.origins().has(path + "max_body_bytes")) {  // else inherited, checked in [server]
    c.size_range(path + "max_body_bytes", s.max_body_bytes, kKiB, kGiB);
  }
  for (const auto& origin : s.allowed_origins) {
    if (origin.empty() || origin.find_first_of(" /\t") != std::string::npos) {
      c.problem(path + "allowed_origins",
                "\"" + origin + "\" is not a host name (e.g. \"events.example.com\")");
    }
  }
  check_forward(c, path, s.forward);
  check_retry(c, path + "retry.", s.retry, true);
  check_scheme_tables(c, path, s);
  if (s.scheme == Scheme::kHmac) check_hmac(c, path, s.hmac);
  check_reconcile(c, path, s);
}

}  // namespace

void check_sources(Checker& c, const Config& config) {
  std::vector<NamedItem> names;
  for (std::size_t i = 0; i < config.sources.size(); ++i) {
    names.push_back({source_path(config.sources[i], i) + ".name", config.sources[i].name});
  }
  check_item_names(c, "source", names);
  for (std::size_t i = 0; i < config.sources.size(); ++i) {
    check_source(c, source_path(config.sources[i], i) + ".", config.sources[i]);
  }
}

}  // namespace hookd::config
