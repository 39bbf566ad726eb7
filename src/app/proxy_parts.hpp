// ProxyParts: the idempotency gateway inside the App — the /proxy/<name> Gateway with its key
// committer, the StatusResolver (lease sweep + status_url), the unknown-key gauges, and an
// HttpClient of its own: no SSRF guard (upstreams are set by the operator, like forward
// URLs), no retries (one call = at most one request on the wire), answers held up to the
// largest max_response_body. With no [[proxy]], nothing is started and /proxy/ answers 404.
// Thread-safety: build/start/stop from the App's thread; handle() from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "hookd/env.hpp"
#include "net/http_client.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"
#include "proxy/gateway.hpp"
#include "proxy/proxy_metrics.hpp"
#include "proxy/status_resolver.hpp"
#include "store/store.hpp"

namespace hookd::app {

struct ProxyDeps {
  const config::Config& config;
  store::Store& store;
  Clock& clock;
  ops::Registry& registry;
  const ops::Logger* logger;
  std::string node_id;
  ops::AlertSink* alerts = nullptr;
};

class ProxyParts {
 public:
  static std::unique_ptr<ProxyParts> build(ProxyDeps deps);
  ~ProxyParts();

  // This owner's claims left by a crash become unknown; then client, gateway, resolver.
  Status start();
  // Resolver, then the client (calls still out end as cancelled), then the gateway (commits
  // the outcomes queued so far).
  void stop();

  void handle(net::HttpRequest request, proxy::Respond respond);

 private:
  explicit ProxyParts(ProxyDeps deps) : deps_(std::move(deps)) {}

  ProxyDeps deps_;
  std::unique_ptr<net::HttpClient> client_;
  std::unique_ptr<proxy::ProxyMetrics> metrics_;
  std::unique_ptr<proxy::Gateway> gateway_;
  std::unique_ptr<proxy::StatusResolver> resolver_;
  bool started_ = false;
};

// hookd_proxy_unknown_keys{proxy} and hookd_proxy_oldest_unknown_seconds{proxy}, read from
// the store at scrape time; one sample for each of `proxies` (the configured names), 0 when a
// proxy has no unknown key.
void register_proxy_gauges(ops::Registry& registry, store::ProxyKeyStore& store, Clock& clock,
                           std::vector<std::string> proxies);

}  // namespace hookd::app
