#include "app/parts.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>

#include "app/module_options.hpp"
#include "app/store_factory.hpp"
#include "app/store_gauges.hpp"
#include "core/address_policy.hpp"
#include "net/http_client_guard.hpp"
#include "ops/masking.hpp"
#include "proxy/key_rules.hpp"

namespace hookd::app {
namespace {

ops::LogLevel to_ops(config::LogLevel level) {
  switch (level) {
    case config::LogLevel::kTrace:
      return ops::LogLevel::kTrace;
    case config::LogLevel::kDebug:
      return ops::LogLevel::kDebug;
    case config::LogLevel::kInfo:
      return ops::LogLevel::kInfo;
    case config::LogLevel::kWarn:
      return ops::LogLevel::kWarn;
    case config::LogLevel::kError:
      return ops::LogLevel::kError;
    case config::LogLevel::kOff:
      return ops::LogLevel::kOff;
  }
  return ops::LogLevel::kInfo;
}

// The dispatcher's lease owner is "<node id>/dispatcher"; the host name keeps it stable
// across restarts of this node (so start() can take back its own leases after a crash) and
// distinct between nodes sharing a database. Several nodes on one host (PostgreSQL) set
// HOOKD_NODE_ID to tell themselves apart.
std::string node_id() {
  if (const char* id = std::getenv("HOOKD_NODE_ID"); id != nullptr && *id != '\0') {
    return std::string("hookd@") + id;
  }
  std::array<char, 256> host{};
  if (::gethostname(host.data(), host.size() - 1) != 0 || host[0] == '\0') return "hookd";
  return std::string("hookd@") + host.data();
}

}  // namespace

Status App::Parts::build(AppOptions options) {
  auto address = parse_listen_address(config.server.listen);
  if (!address) return std::unexpected(address.error());
  listen = *address;
  if (auto logged = build_logger(options); !logged) return logged;
  metrics = std::make_unique<ops::HookdMetrics>(registry);
  auto opened = open_store(config);
  if (!opened) return std::unexpected(opened.error());
  storage = std::move(*opened);
  store = storage->store.get();
  health = std::make_unique<StoreHealth>([this] { return store->probe_commit(); });
  register_store_gauges(registry, *store, storage->clock, *health);
  if (auto client_built = build_client(); !client_built) return client_built;
  build_publish();
  build_alerts();
  build_dispatcher();
  auto reconcile_built =
      ReconcileParts::build({config, *store, storage->clock, &registry, logger.get(),
                             dispatcher_options.node_id, alerts.get()});
  if (!reconcile_built) return std::unexpected(reconcile_built.error());
  reconcile = std::move(*reconcile_built);
  purger = build_retention_purger(config, *store, storage->clock, registry, *logger);
  if (auto api_built = build_api(); !api_built) return api_built;
  auto inbound_built =
      InboundParts::build({config, *store, storage->clock, storage->random, registry, metrics.get(),
                           logger.get(), dispatcher_options.node_id, alerts.get()});
  if (!inbound_built) return std::unexpected(inbound_built.error());
  inbound = std::move(*inbound_built);
  inbound->on_commit_status(
      [this](const Status& commit) { health->observe(commit, std::chrono::steady_clock::now()); });
  proxy = ProxyParts::build({config, *store, storage->clock, registry, logger.get(),
                             dispatcher_options.node_id, alerts.get()});
  build_server();
  return {};
}

Status App::Parts::build_logger(const AppOptions& options) {
  auto masker = ops::Masker::create(ops::MaskingConfig{config.logging.masked_pointers, true});
  if (!masker) return std::unexpected(masker.error());
  ops::LogOptions log_options;
  log_options.level = to_ops(config.logging.level);
  log_options.format = config.logging.format == config::LogFormat::kText ? ops::LogFormat::kText
                                                                         : ops::LogFormat::kJson;
  auto sink = options.log_sink ? options.log_sink : ops::make_stderr_sink();
  this->masker = std::make_shared<const ops::Masker>(std::move(*masker));
  logger = std::make_unique<ops::Logger>(log_options, std::move(sink), this->masker);
  return {};
}

Status App::Parts::build_client() {
  auto policy = AddressPolicy::from_strings(config.ssrf.allowed_subnets);
  if (!policy) return std::unexpected(policy.error());
  net::HttpClientOptions options;
  options.connect_timeout = config.delivery.connect_timeout;
  options.total_timeout = config.delivery.timeout;
  options.body_limit = config.delivery.max_response_body_bytes;
  options.address_guard = net::make_address_guard(std::move(*policy));
  client = std::make_unique<net::HttpClient>(std::move(options));
  return {};
}

// A commit that created deliveries wakes the dispatcher (built next, started after this).
void App::Parts::build_publish() {
  publish = std::make_unique<PublishBatcher>(
      *store, PublishBatcher::kMaxBatch, PublishBatcher::kMaxQueue, [this] { dispatcher->wake(); });
  publish->on_commit_status(
      [this](const Status& commit) { health->observe(commit, std::chrono::steady_clock::now()); });
}

void App::Parts::build_alerts() {
  alerts = std::make_unique<AlertPublisher>(
      AlertPublisherOptions{config.alerts.url, config.alerts.secret, config.alerts.types},
      AlertPublisherDeps{*store, *publish, storage->clock, storage->random, registry, logger.get(),
                         masker});
}

void App::Parts::build_dispatcher() {
  // One SQLite writer: the round joins the publishes' commit. PostgreSQL: its own.
  outbound::RoundCommitter* rounds = publish.get();
  if (!store->single_writer()) {
    store_rounds = std::make_unique<outbound::StoreRounds>(*store);
    rounds = store_rounds.get();
  }
  dispatcher_options = app::dispatcher_options(config);
  dispatcher_options.node_id = node_id();
  dispatcher = std::make_unique<outbound::Dispatcher>(
      dispatcher_options,
      outbound::DispatcherDeps{*store, *store, *store, *rounds, *client, storage->clock,
                               storage->random, metrics.get(), logger.get(), alerts.get()});
}

Status App::Parts::build_api() {
  auto options = api_options(config);
  if (!options) return std::unexpected(options.error());
  api = std::make_unique<api::Api>(
      api::ApiDeps{*store, *publish, storage->clock, storage->random, metrics.get(), &registry,
                   logger.get(), std::move(*options),
                   // Any source can have differences to resolve.
                   config.sources.empty() ? nullptr : reconcile.get(), alerts.get(), masker});
  return {};
}

// Every API request goes to the Api. A publish wakes the dispatcher through the publish
// batcher's on_committed hook (build_publish); other changes that create due work (resend,
// replay, recover) are rare and picked up by the dispatcher's poll (delivery.poll_interval).
void App::Parts::handle_api(net::HttpRequest request, Respond respond) {
  api->handle(std::move(request), std::move(respond));
}

void App::Parts::build_server() {
  RouterRoutes routes;
  routes.readiness = [this] { return readiness(); };
  routes.api = [this](net::HttpRequest request, Respond respond) {
    handle_api(std::move(request), std::move(respond));
  };
  if (config.metrics.enabled) {
    routes.metrics = [this] { return registry.render(); };
    routes.metrics_path = config.metrics.path;
  }
  routes.inbound = [this](net::HttpRequest request, Respond respond) {
    inbound->handle(std::move(request), std::move(respond));
  };
  routes.proxy = [this](net::HttpRequest request, Respond respond) {
    proxy->handle(std::move(request), std::move(respond));
  };
  router = std::make_unique<Router>(std::move(routes));
  auto http_options = server_options(config.server, listen);
  if (!config.proxies.empty()) http_options.spool_prefix = std::string(proxy::kProxyPrefix);
  server = std::make_unique<net::HttpServer>(
      std::move(http_options), [this](net::HttpRequest request, net::Responder responder) {
        router->handle(std::move(request), Respond(std::move(responder)));
      });
}

Status App::Parts::start() {
  started = true;
  if (auto migrated = store->migrate(); !migrated) return migrated;
  // Deliveries this node leased before a crash are due again now, not after their lease.
  if (auto released = store->release_leases(dispatcher_options.lease_owner()); !released) {
    return std::unexpected(released.error());
  } else if (*released > 0) {
    logger->info("hookd.leases_released", {{"deliveries", *released}});
  }
  client->start();
  client_started = true;
  publish->start();  // before its users, the dispatcher and the API
  publish_started = true;
  if (auto alerting = alerts->start(); !alerting) return alerting;  // needs the migrated store
  alerts_started = true;
  if (auto dispatching = dispatcher->start(); !dispatching) return dispatching;
  dispatcher_started = true;
  if (auto serving = api->start(); !serving) return serving;
  api_started = true;
  if (auto receiving = inbound->start(); !receiving) return receiving;
  inbound_started = true;
  if (auto proxying = proxy->start(); !proxying) return proxying;
  proxy_started = true;
  if (auto reconciling = reconcile->start(); !reconciling) return reconciling;
  reconcile_started = true;
  purger->start();  // the migrated store; its first pass a minute later
  purger_started = true;
  if (auto listening = server->start(); !listening) return listening;
  server_started = true;
  ready = true;
  logger->info("hookd.started", {{"listen", listen.host},
                                 {"port", server->local_port()},
                                 {"database", printable_database_url(config.database.url)}});
  return {};
}

void App::Parts::stop() {
  if (!started) return;
  started = false;
  ready = false;
  logger->info("hookd.stopping");
  // shutdown_grace bounds the whole stop: attempts and forwards in flight get it while the
  // HTTP server drains, not after it; what cannot finish by then is given back (leases).
  const auto deadline = std::chrono::steady_clock::now() + config.server.shutdown_grace;
  if (dispatcher_started) dispatcher->begin_stop(deadline);
  if (inbound_started) inbound->begin_stop(deadline);
  if (purger_started) purger->stop();  // a pass ends at its next batch (milliseconds)
  const auto left = std::max(std::chrono::steady_clock::duration::zero(),
                             deadline - std::chrono::steady_clock::now());
  if (server_started) {
    server->stop(std::chrono::duration_cast<std::chrono::milliseconds>(left));
  }
  if (reconcile_started) reconcile->stop();  // a run in progress ends at its next page
  if (proxy_started) proxy->stop();          // records the outcomes of calls answered in the grace
  if (api_started) api->stop();              // new requests get 503
  if (inbound_started) inbound->stop();      // commits queued events, then the forwarder
  if (dispatcher_started) dispatcher->stop();  // needs the client for in-flight attempts
  if (alerts_started) alerts->stop();          // what its users raised is queued in `publish`
  if (publish_started) publish->stop();        // after its users: commits every queued publish
  if (client_started) client->stop();
  server_started = api_started = dispatcher_started = alerts_started = publish_started =
      client_started = inbound_started = proxy_started = reconcile_started = purger_started = false;
  logger->info("hookd.stopped");
  logger->flush();
}

Status App::Parts::readiness() const {
  if (!ready) return fail(ErrorCode::kUnavailable, "not started or stopping");
  // Reads keep working on a full disk: the commits say whether the store can take writes.
  if (auto committing = health->check(std::chrono::steady_clock::now()); !committing) {
    return committing;
  }
  auto version = store->schema_version();
  if (!version) return std::unexpected(version.error());
  return {};
}

}  // namespace hookd::app
