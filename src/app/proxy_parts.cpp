#include "app/proxy_parts.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include "app/module_options.hpp"

namespace hookd::app {

std::unique_ptr<ProxyParts> ProxyParts::build(ProxyDeps deps) {
  std::unique_ptr<ProxyParts> p(new ProxyParts(std::move(deps)));
  auto options = gateway_options(p->deps_.config, p->deps_.node_id);
  net::HttpClientOptions client_options;
  client_options.body_limit = 0;
  for (const auto& route : options.routes) {
    client_options.body_limit = std::max(client_options.body_limit, route.max_response_body);
  }
  client_options.drain_limit = 0;  // an answer above the limit is cut, not read to the end
  client_options.thread_name = "hookd-proxyhttp";
  p->client_ = std::make_unique<net::HttpClient>(std::move(client_options));
  p->metrics_ = std::make_unique<proxy::ProxyMetrics>(p->deps_.registry);
  p->gateway_ = std::make_unique<proxy::Gateway>(
      options, proxy::GatewayDeps{p->deps_.store, *p->client_, p->metrics_.get(), p->deps_.logger,
                                  p->deps_.alerts});
  p->resolver_ = std::make_unique<proxy::StatusResolver>(options, p->deps_.store, *p->client_,
                                                         p->deps_.logger);
  // Without a [[proxy]] there are no keys: no store read on each scrape.
  if (!options.routes.empty()) {
    std::vector<std::string> names;
    for (const auto& route : options.routes) names.push_back(route.name);
    register_proxy_gauges(p->deps_.registry, p->deps_.store, p->deps_.clock, std::move(names));
  }
  return p;
}

ProxyParts::~ProxyParts() { stop(); }

Status ProxyParts::start() {
  if (deps_.config.proxies.empty()) return {};
  client_->start();
  started_ = true;
  if (auto started = gateway_->start(); !started) return started;
  resolver_->start();
  return {};
}

void ProxyParts::stop() {
  if (!started_) return;
  started_ = false;
  resolver_->stop();
  // The client first: calls still out end as cancelled (unknown if they had left, released if
  // not), and the gateway's stop then commits those outcomes.
  client_->stop();
  gateway_->stop();
}

void ProxyParts::handle(net::HttpRequest request, proxy::Respond respond) {
  gateway_->handle(std::move(request), std::move(respond));
}

namespace {

// One sample per configured proxy (0 for one without unknown keys, so a scrape shows every
// proxy), from the store's per-proxy stats; `value` picks the figure.
std::vector<ops::GaugeSample> per_proxy(
    const std::vector<std::string>& proxies,
    const Result<std::vector<store::ProxyUnknownStat>>& stats,
    const std::function<double(const store::ProxyUnknownStat&)>& value) {
  std::vector<ops::GaugeSample> out;
  for (const auto& name : proxies) {
    double v = 0;
    if (stats) {
      for (const auto& s : *stats) {
        if (s.proxy == name) v = value(s);
      }
    }
    out.push_back({{name}, v});
  }
  return out;
}

}  // namespace

void register_proxy_gauges(ops::Registry& registry, store::ProxyKeyStore& store, Clock& clock,
                           std::vector<std::string> proxies) {
  auto stats = [&store] { return store.proxy_unknown_stats(); };
  registry.gauge_callback(
      std::string(proxy::kUnknownKeysMetric),
      "Idempotency keys whose outcome is unknown, by proxy.", {"proxy"}, [stats, proxies] {
        return per_proxy(proxies, stats(), [](const store::ProxyUnknownStat& s) {
          return static_cast<double>(s.count);
        });
      });
  registry.gauge_callback(
      std::string(proxy::kOldestUnknownMetric),
      "Age of the oldest idempotency key whose outcome is unknown, by proxy (0: none).", {"proxy"},
      [stats, proxies, &clock] {
        return per_proxy(proxies, stats(), [&clock](const store::ProxyUnknownStat& s) {
          return static_cast<double>(clock.now_ms() - s.oldest_at) / 1000.0;
        });
      });
}

}  // namespace hookd::app
