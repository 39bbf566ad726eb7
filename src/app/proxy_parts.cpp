#include "app/proxy_parts.hpp"

#include <algorithm>

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
      options, proxy::GatewayDeps{p->deps_.store, *p->client_, p->metrics_.get(), p->deps_.logger});
  p->resolver_ = std::make_unique<proxy::StatusResolver>(options, p->deps_.store, *p->client_,
                                                         p->deps_.logger);
  // Without a [[proxy]] there are no keys: no store read on each scrape.
  if (!options.routes.empty()) {
    register_proxy_gauges(p->deps_.registry, p->deps_.store, p->deps_.clock);
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

void register_proxy_gauges(ops::Registry& registry, store::ProxyKeyStore& store, Clock& clock) {
  auto stats = [&store] { return store.proxy_unknown_stats(); };
  registry.gauge_callback(std::string(proxy::kUnknownKeysMetric),
                          "Idempotency keys whose outcome is unknown, by proxy.", {"proxy"},
                          [stats] {
                            std::vector<ops::GaugeSample> out;
                            if (auto s = stats()) {
                              for (const auto& p : *s) {
                                out.push_back({{p.proxy}, static_cast<double>(p.count)});
                              }
                            }
                            return out;
                          });
  registry.gauge_callback(
      std::string(proxy::kOldestUnknownMetric),
      "Age of the oldest idempotency key whose outcome is unknown, by proxy.", {"proxy"},
      [stats, &clock] {
        std::vector<ops::GaugeSample> out;
        if (auto s = stats()) {
          for (const auto& p : *s) {
            out.push_back({{p.proxy}, static_cast<double>(clock.now_ms() - p.oldest_at) / 1000.0});
          }
        }
        return out;
      });
}

}  // namespace hookd::app
