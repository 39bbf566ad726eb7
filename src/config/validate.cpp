#include "config/validate.hpp"

#include <chrono>
#include <map>
#include <set>

#include "config/checker.hpp"
#include "config/environment.hpp"
#include "core/alert_types.hpp"

namespace hookd::config {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

void check_server(Checker& c, const ServerConfig& s) {
  c.check("server.listen", check_listen_address(s.listen));
  c.range("server.io_threads", s.io_threads, 0, 256);
  c.size_range("server.max_header_bytes", s.max_header_bytes, kKiB, kMiB);
  c.size_range("server.max_body_bytes", s.max_body_bytes, kKiB, kGiB);
  c.size_range("server.max_proxy_body_bytes", s.max_proxy_body_bytes, kKiB, 16 * kGiB);
  c.size_range("server.max_url_bytes", s.max_url_bytes, 256, s.max_header_bytes);
  c.range("server.max_json_depth", s.max_json_depth, 1, 1000);
  c.range("server.read_timeout", s.read_timeout, seconds(1), hours(1));
  c.range("server.idle_timeout", s.idle_timeout, seconds(1), hours(1));
  c.range("server.max_connections", s.max_connections, 1, 1'000'000);
  c.range("server.shutdown_grace", s.shutdown_grace, milliseconds(0), hours(1));
}

void check_database(Checker& c, const DatabaseConfig& d) {
  c.check("database.url", check_database_url(d.url));  // never quotes: may hold a password
  c.range("database.pool_size", d.pool_size, 1, 1000);
  c.range("database.busy_timeout", d.busy_timeout, milliseconds(0), minutes(10));
}

void check_auth(Checker& c, const AuthConfig& a) {
  std::set<std::string> names;
  for (std::size_t i = 0; i < a.tokens.size(); ++i) {
    const std::string key = "auth.tokens[" + std::to_string(i) + "]";
    const ApiToken& t = a.tokens[i];
    if (auto ok = check_name(t.name); !ok) c.problem_in("auth.tokens", key + ".name", ok.error());
    if (!names.insert(t.name).second)
      c.problem_in("auth.tokens", key + ".name",
                   "name \"" + t.name + "\" is used by another token");
    if (t.token.empty()) c.problem_in("auth.tokens", key + ".token", "is empty");
    if (t.token.find_first_of(" \t\r\n") != std::string::npos) {
      c.problem_in("auth.tokens", key + ".token", "contains whitespace (the value is not shown)");
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (a.tokens[j].token == t.token && !t.token.empty()) {
        c.problem_in("auth.tokens", key + ".token",
                     "has the same value as the token named \"" + a.tokens[j].name +
                         "\"; the audit log could not tell them apart");
      }
    }
  }
}

void check_delivery(Checker& c, const DeliveryConfig& d) {
  c.range("delivery.connect_timeout", d.connect_timeout, milliseconds(100), minutes(1));
  c.range("delivery.timeout", d.timeout, milliseconds(100), hours(1));
  if (d.connect_timeout > d.timeout) {
    c.problem("delivery.connect_timeout", "must not be longer than delivery.timeout (" +
                                              format_duration(d.timeout) + "), which includes it");
  }
  c.size_range("delivery.max_response_body_bytes", d.max_response_body_bytes, 0, kMiB);
  check_retry(c, "delivery.", d.retry, false);
  c.range("delivery.endpoint_concurrency", d.endpoint_concurrency, 1, 1000);
  c.range("delivery.default_rate_limit", d.default_rate_limit, 0, 1'000'000);
  c.range("delivery.circuit_failure_rate", d.circuit_failure_rate, 0, 100);
  c.range("delivery.circuit_min_attempts", d.circuit_min_attempts, 1, 1'000'000);
  c.range("delivery.circuit_window", d.circuit_window, seconds(1), hours(1));
  c.range("delivery.circuit_cooldown", d.circuit_cooldown, seconds(1), days(1));
  c.range("delivery.circuit_ramp_interval", d.circuit_ramp_interval, milliseconds(10), minutes(10));
  c.range("delivery.circuit_failure_threshold", d.circuit_failure_threshold, -1, 10'000);
  c.range("delivery.lease_duration", d.lease_duration, seconds(1), days(1));
  c.range("delivery.inbound_forward_nice", d.inbound_forward_nice, 0, 19);
  if (d.lease_duration <= d.timeout) {
    c.problem("delivery.lease_duration",
              "must be longer than delivery.timeout (" + format_duration(d.timeout) +
                  "), or a lease could expire while its attempt is still running");
  }
  c.range("delivery.claim_batch_size", d.claim_batch_size, 1, 10'000);
  c.range("delivery.poll_interval", d.poll_interval, milliseconds(10), minutes(1));
  c.range("delivery.workers", d.workers, 1, 1024);
}

void check_ssrf(Checker& c, const SsrfConfig& s) {
  for (std::size_t i = 0; i < s.allowed_subnets.size(); ++i) {
    if (auto ok = check_cidr(s.allowed_subnets[i]); !ok) {
      c.problem("ssrf.allowed_subnets", "item " + std::to_string(i) + ": " + ok.error());
    }
  }
}

void check_logging(Checker& c, const LoggingConfig& l) {
  for (std::size_t i = 0; i < l.masked_pointers.size(); ++i) {
    if (auto ok = check_json_pointer(l.masked_pointers[i]); !ok) {
      c.problem("logging.masked_pointers", "item " + std::to_string(i) + ": " + ok.error());
    }
  }
}

void check_metrics(Checker& c, const MetricsConfig& m) {
  c.check("metrics.path", check_url_path(m.path));
  if (m.path.starts_with("/in/") || m.path.starts_with("/api/") || m.path.starts_with("/proxy/")) {
    c.problem("metrics.path",
              "must not be under /in/, /api/ or /proxy/, which hookd routes itself");
  }
}

void check_alerts(Checker& c, const AlertsConfig& a) {
  if (a.url.empty()) {
    if (!a.secret.empty()) c.problem("alerts.secret", "is set but alerts.url is empty");
  } else {
    c.check("alerts.url", check_http_url_without_user_info(a.url));
    if (a.secret.empty()) {
      c.problem("alerts.secret", "is required with alerts.url: alerts are signed");
    } else if (!a.secret.starts_with("whsec_") || !check_base64(a.secret.substr(6))) {
      c.problem("alerts.secret", "must be whsec_<base64> (the value is not shown)");
    }
  }
  for (const auto& type : a.types) {
    if (!alert_types::is_known(type)) {
      std::string known;
      for (auto name : alert_types::kAll) known += (known.empty() ? "" : ", ") + std::string(name);
      c.problem("alerts.types", "unknown alert type \"" + type + "\"; known: " + known);
    }
  }
}

}  // namespace

void check_retry(Checker& c, const std::string& prefix, const RetryConfig& r, bool only_set) {
  const auto wanted = [&](const char* key) { return !only_set || c.origins().has(prefix + key); };
  if (wanted("max_attempts")) c.range(prefix + "max_attempts", r.max_attempts, 1, 100);
  if (wanted("max_age")) c.range(prefix + "max_age", r.max_age, seconds(1), days(90));
  if (wanted("backoff_base"))
    c.range(prefix + "backoff_base", r.backoff_base, milliseconds(10), days(1));
  if (wanted("backoff_max"))
    c.range(prefix + "backoff_max", r.backoff_max, milliseconds(10), days(30));
  if ((wanted("backoff_base") || wanted("backoff_max")) && r.backoff_base > r.backoff_max) {
    c.problem(prefix + "backoff_max", "must be at least " + prefix + "backoff_base (" +
                                          format_duration(r.backoff_base) + ")");
  }
  if (!wanted("schedule")) return;
  if (r.schedule.size() > 100) c.problem(prefix + "schedule", "has more than 100 entries");
  for (std::size_t i = 0; i < r.schedule.size(); ++i) {
    if (r.schedule[i] > days(30)) {
      c.problem(prefix + "schedule", "item " + std::to_string(i) + " is longer than 30d");
    }
  }
}

void check_item_names(Checker& c, std::string_view section, const std::vector<NamedItem>& items) {
  const std::string table = "[[" + std::string(section) + "]]";
  std::map<std::string, std::string> env_names;  // env name part -> first item's name
  for (const auto& [key, name] : items) {
    if (name.empty()) continue;
    if (auto ok = check_name(name); !ok) {
      c.problem(key, ok.error());
      continue;
    }
    const auto [it, inserted] = env_names.emplace(env_name_part(name), name);
    if (inserted) continue;
    if (it->second == name) {
      c.problem(
          key, "another " + table + " already has the name \"" + name + "\"; names must be unique");
    } else {
      c.problem(key, "\"" + name + "\" and \"" + it->second +
                         "\" have the same environment variables (" + std::string(kEnvPrefix) +
                         env_name_part(section) + "_" + it->first + "_...); rename one");
    }
  }
}

// A period is 0 (kept forever) or at least a day; dead letters are kept at least as long as
// delivered messages (a message is only purged once past `delivered`); a source's inbox is
// kept past its reconciliation overlap (the store also waits for the watermark).
void check_retention_period(Checker& c, const std::string& key, Duration period) {
  if (period == Duration::zero()) return;
  c.range(key, period, days(1), days(36'500));
}

void check_retention(Checker& c, const Config& config) {
  const RetentionConfig& r = config.retention;
  check_retention_period(c, "retention.delivered", r.delivered);
  check_retention_period(c, "retention.dead", r.dead);
  check_retention_period(c, "retention.inbox", r.inbox);
  check_retention_period(c, "retention.audit", r.audit);
  if (r.dead != Duration::zero() && r.delivered != Duration::zero() && r.dead < r.delivered) {
    c.problem("retention.dead", "must be at least retention.delivered (" +
                                    Checker::quote(format_duration(r.delivered)) +
                                    ") or 0: dead letters are kept longer, not shorter");
  }
  if (r.interval != Duration::zero()) {
    c.range("retention.interval", r.interval, seconds(1), days(1));
  }
  c.range("retention.batch_size", r.batch_size, 1, 100'000);
  c.range("retention.pause", r.pause, milliseconds(0), seconds(10));
  for (const auto& source : config.sources) {
    if (!source.reconcile) continue;
    for (const auto& [key, period] :
         {std::pair{"retention.inbox", r.inbox}, std::pair{"retention.dead", r.dead}}) {
      if (period != Duration::zero() && period <= source.reconcile->overlap + days(1)) {
        c.problem(key, "must be longer than the reconcile overlap of source \"" + source.name +
                           "\" plus a day (" +
                           Checker::quote(format_duration(source.reconcile->overlap)) +
                           " + 1d), or 0");
      }
    }
  }
}

std::vector<Problem> validate(const Config& config, const Origins& origins) {
  std::vector<Problem> problems;
  Checker c(origins, problems);
  check_server(c, config.server);
  check_database(c, config.database);
  check_auth(c, config.auth);
  check_delivery(c, config.delivery);
  check_ssrf(c, config.ssrf);
  check_sources(c, config);
  check_proxies(c, config);
  check_logging(c, config.logging);
  check_metrics(c, config.metrics);
  check_alerts(c, config.alerts);
  check_retention(c, config);
  return problems;
}

}  // namespace hookd::config
