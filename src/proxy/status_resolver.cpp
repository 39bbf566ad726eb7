#include "proxy/status_resolver.hpp"

#include <future>
#include <utility>

#include "hookd/threads.hpp"
#include "proxy/key_rules.hpp"
#include "store/proxy_resolution.hpp"

namespace hookd::proxy {
namespace {

constexpr int kKeysPerPass = 100;

constexpr const char* kResolver = "hookd:status_url";

}  // namespace

StatusResolver::StatusResolver(GatewayOptions options, store::ProxyKeyStore& store,
                               net::HttpSender& sender, const ops::Logger* logger)
    : options_(std::move(options)), store_(store), sender_(sender), logger_(logger) {}

StatusResolver::~StatusResolver() { stop(); }

void StatusResolver::start() {
  std::lock_guard lock(mu_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void StatusResolver::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StatusResolver::loop() {
  name_this_thread("hookd-proxyres");
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    run_once();
    lock.lock();
    cv_.wait_for(lock, options_.sweep_interval, [this] { return stopping_; });
  }
}

int StatusResolver::run_once(bool force) {
  auto expired = store_.proxy_expire_leases();
  if (!expired && logger_ != nullptr) {
    logger_->warn("proxy.lease_sweep_failed", {{"error", expired.error().message}});
  } else if (expired && *expired > 0 && logger_ != nullptr) {
    logger_->warn("proxy.expired_claims_unknown", {{"keys", std::to_string(*expired)}});
  }
  int resolved = 0;
  const auto now = std::chrono::steady_clock::now();
  for (const auto& route : options_.routes) {
    if (route.status_url.empty()) continue;
    auto last = last_check_.find(route.name);
    if (!force && last != last_check_.end() && now - last->second < route.status_interval) {
      continue;
    }
    last_check_[route.name] = now;
    resolved += check_proxy(route);
  }
  return resolved;
}

int StatusResolver::check_proxy(const ProxyRoute& route) {
  store::ProxyKeyFilter filter;
  filter.proxy = route.name;
  filter.state = store::ProxyKeyState::kUnknown;
  store::PageRequest page;
  page.limit = kKeysPerPass;
  auto keys = store_.proxy_list(filter, page);
  if (!keys) {
    if (logger_ != nullptr) {
      logger_->warn("proxy.status_list_failed",
                    {{"proxy", route.name}, {"error", keys.error().message}});
    }
    return 0;
  }
  int resolved = 0;
  for (const auto& key : keys->data) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) break;
    }
    if (check_key(route, key)) ++resolved;
  }
  return resolved;
}

bool StatusResolver::check_key(const ProxyRoute& route, const store::ProxyKey& key) {
  net::OutboundRequest request;
  request.method = "GET";
  request.url = status_url_for(route.status_url, key.key);
  request.connect_timeout = route.connect_timeout;
  request.total_timeout = route.timeout;
  std::promise<net::AttemptResult> promise;
  auto answered = promise.get_future();
  sender_.send(std::move(request),
               [&promise](net::AttemptResult result) { promise.set_value(std::move(result)); });
  const net::AttemptResult result = answered.get();
  if (!result.ok() || (result.status != 200 && result.status != 404) || result.truncated) {
    return false;
  }
  store::ProxyResolution resolution;
  resolution.resolved_by = kResolver;
  if (result.status == 404) {
    resolution.outcome = store::ProxyResolution::Outcome::kNotExecuted;
    resolution.reason = "status_url answered 404: not executed";
  } else {
    resolution.outcome = store::ProxyResolution::Outcome::kCompleted;
    resolution.status = result.status;
    resolution.headers = end_to_end_headers(result.headers);
    resolution.body = result.body;
    resolution.ttl_ms = route.ttl.count();
    resolution.reason = "status_url answered 200: completed";
  }
  auto done = store_.proxy_resolve(
      key.id, resolution, store::proxy_resolution_audit(key.id, kResolver, resolution.reason));
  if (logger_ != nullptr) {
    if (done) {
      logger_->info("proxy.key_resolved",
                    {{"proxy", route.name}, {"key_id", key.id}, {"reason", resolution.reason}});
    } else {
      logger_->warn("proxy.key_resolve_failed",
                    {{"proxy", route.name}, {"key_id", key.id}, {"error", done.error().message}});
    }
  }
  return done.has_value();
}

}  // namespace hookd::proxy
