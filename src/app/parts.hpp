// App::Parts: the components the App owns, declared in construction order (members are
// destroyed in reverse, so nothing outlives what it references), with the start/stop
// sequences. Internal to src/app; see app.hpp for the lifecycle contract.
// Thread-safety: build/start/stop from one thread; readiness() from any thread.
#pragma once

#include <atomic>
#include <memory>

#include "api/api.hpp"
#include "app/alert_publisher.hpp"
#include "app/app.hpp"
#include "app/inbound_parts.hpp"
#include "app/listen_address.hpp"
#include "app/proxy_parts.hpp"
#include "app/publish_batcher.hpp"
#include "app/reconcile_parts.hpp"
#include "app/retention_parts.hpp"
#include "app/router.hpp"
#include "app/store_factory.hpp"
#include "app/store_health.hpp"
#include "net/http_client.hpp"
#include "net/http_server.hpp"
#include "ops/hookd_metrics.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"
#include "outbound/dispatcher.hpp"
#include "outbound/ports.hpp"
#include "store/store.hpp"

namespace hookd::app {

struct App::Parts {
  explicit Parts(config::Config c) : config(std::move(c)) {}

  Status build(AppOptions options);
  Status start();
  void stop();
  Status readiness() const;

  const config::Config config;
  ListenAddress listen;
  // The store with the daemon's one clock and one source of randomness (store_factory),
  // passed to everything.
  std::unique_ptr<OpenedStore> storage;
  std::shared_ptr<const ops::Masker> masker;  // the logger's, also the alerts'
  std::unique_ptr<ops::Logger> logger;
  ops::Registry registry;
  std::unique_ptr<ops::HookdMetrics> metrics;
  store::Store* store = nullptr;  // storage->store
  // Whether the store can commit (the committers report; /readyz asks and probes).
  std::unique_ptr<StoreHealth> health;
  std::unique_ptr<net::HttpClient> client;
  // Group commit for the API's publishes and (one SQLite writer) the dispatcher's rounds;
  // PostgreSQL rounds go straight to the store (outbound::StoreRounds).
  std::unique_ptr<PublishBatcher> publish;
  // Operational alerts ([alerts]), published through `publish`; every module raises into it.
  std::unique_ptr<AlertPublisher> alerts;
  std::unique_ptr<outbound::StoreRounds> store_rounds;
  outbound::DispatcherOptions dispatcher_options;
  std::unique_ptr<outbound::Dispatcher> dispatcher;
  std::unique_ptr<api::Api> api;
  std::unique_ptr<InboundParts> inbound;           // /in/<source> and the forwarder
  std::unique_ptr<ProxyParts> proxy;               // /proxy/<name>, the idempotency gateway
  std::unique_ptr<ReconcileParts> reconcile;       // the inbound reconcilers (the API's port)
  std::unique_ptr<store::RetentionPurger> purger;  // [retention]: settled rows, in batches
  std::unique_ptr<Router> router;
  std::unique_ptr<net::HttpServer> server;

  std::atomic<bool> ready{false};
  bool started = false;  // start() ran (fully or partly): stop() has work to do
  bool client_started = false;
  bool publish_started = false;
  bool alerts_started = false;
  bool dispatcher_started = false;
  bool api_started = false;
  bool server_started = false;
  bool inbound_started = false;
  bool proxy_started = false;
  bool reconcile_started = false;
  bool purger_started = false;

 private:
  Status build_logger(const AppOptions& options);
  Status build_client();
  void build_publish();
  void build_alerts();
  void build_dispatcher();
  Status build_api();
  void handle_api(net::HttpRequest request, Respond respond);
  void build_server();
};

}  // namespace hookd::app
