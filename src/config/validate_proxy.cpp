// Validation of [[proxy]] tables (the idempotency gateway, docs/proxy.md): names, the
// upstream and status URLs, keyed methods, the tenant header, timeouts and body limits.
#include <chrono>
#include <set>

#include "config/checker.hpp"
#include "config/readers.hpp"

namespace hookd::config {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::milliseconds;

void check_upstream(Checker& c, const std::string& path, const ProxyConfig& p) {
  if (p.upstream.empty()) {
    c.problem(path + "upstream",
              "is required: the http(s) URL that /proxy/" + p.name +
                  "/<rest> is sent to (as upstream + /<rest>), e.g. \"http://127.0.0.1:9000\"");
  } else {
    c.check(path + "upstream", check_upstream_url(p.upstream));
  }
}

void check_methods(Checker& c, const std::string& path, const std::vector<std::string>& methods) {
  const std::string key = path + "methods";
  if (methods.empty()) {
    c.problem(key, "is empty; list the methods that need an Idempotency-Key, e.g. [\"POST\"]");
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < methods.size(); ++i) {
    const std::string item = "item " + std::to_string(i) + ": ";
    if (auto ok = check_method(methods[i]); !ok) {
      c.problem(key, item + ok.error());
    } else if (!seen.insert(methods[i]).second) {
      c.problem(key, item + "\"" + methods[i] + "\" is listed twice");
    }
  }
}

void check_timeouts(Checker& c, const std::string& path, const ProxyConfig& p) {
  c.range(path + "ttl", p.ttl, milliseconds(1), days(365));
  c.range(path + "timeout", p.timeout, milliseconds(1), hours(1));
  c.range(path + "connect_timeout", p.connect_timeout, milliseconds(1), hours(1));
  if (p.connect_timeout > p.timeout) {
    c.problem(path + "connect_timeout", "must not be longer than " + path + "timeout (" +
                                            format_duration(p.timeout) + "), which includes it");
  }
  c.range(path + "status_interval", p.status_interval, milliseconds(1), days(1));
}

void check_bodies(Checker& c, const std::string& path, const ProxyConfig& p) {
  c.size_range(path + "max_stored_body", p.max_stored_body, 0, 64 * kMiB);
  c.size_range(path + "max_response_body", p.max_response_body, kKiB, kGiB);
  if (p.max_response_body < p.max_stored_body) {
    c.problem(path + "max_response_body",
              "must be at least " + path + "max_stored_body (" + format_size(p.max_stored_body) +
                  "): an answer that may be stored must also be passed on");
  }
}

void check_proxy(Checker& c, const std::string& path, const ProxyConfig& p) {
  check_upstream(c, path, p);
  check_methods(c, path, p.methods);
  if (!p.tenant_header.empty()) c.check(path + "tenant_header", check_header_name(p.tenant_header));
  check_timeouts(c, path, p);
  check_bodies(c, path, p);
  if (!p.status_url.empty()) c.check(path + "status_url", check_key_url_template(p.status_url));
}

}  // namespace

void check_proxies(Checker& c, const Config& config) {
  std::vector<NamedItem> names;
  for (std::size_t i = 0; i < config.proxies.size(); ++i) {
    names.push_back({proxy_path(config.proxies[i], i) + ".name", config.proxies[i].name});
  }
  check_item_names(c, "proxy", names);
  for (std::size_t i = 0; i < config.proxies.size(); ++i) {
    check_proxy(c, proxy_path(config.proxies[i], i) + ".", config.proxies[i]);
  }
}

}  // namespace hookd::config
