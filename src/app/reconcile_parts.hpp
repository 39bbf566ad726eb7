// ReconcileParts: the inbound reconcilers inside the App (issue 15, docs/reconciliation.md) and
// the API's ReconcilePort over them. One reconcile::Reconciler per [[source]]: those with a
// [source.reconcile] run (every `interval`, and on demand); the others are never started but
// still resolve their differences (a parked_timeout difference exists for any source with
// depends_on). Feed and status requests go through an HttpClient of their own without the
// SSRF guard: feed_url and status_url are set by the operator in the config, like forward.url.
// Also registers the reconcile gauges (differences by kind and state, the oldest open one,
// the watermark lag) read from the store on scrape.
// Thread-safety: build/start/stop from the App's (or the CLI's) thread; start_run(), resolve()
// and run_once() from any thread.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "api/reconcile_port.hpp"
#include "config/config.hpp"
#include "hookd/env.hpp"
#include "net/http_client.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"
#include "reconcile/reconciler.hpp"
#include "store/store.hpp"

namespace hookd::app {

struct ReconcileDeps {
  const config::Config& config;
  store::Store& store;
  Clock& clock;
  ops::Registry* registry = nullptr;  // null: no metrics (the CLI)
  const ops::Logger* logger = nullptr;
  std::string node_id;
  ops::AlertSink* alerts = nullptr;  // null: no alerts (the CLI)
};

class ReconcileParts final : public api::ReconcilePort {
 public:
  static Result<std::unique_ptr<ReconcileParts>> build(ReconcileDeps deps);
  ~ReconcileParts() override;

  // True when some source has a [source.reconcile] (else nothing runs).
  bool any_configured() const { return !configured_.empty(); }

  Status start();
  void stop();  // ends runs in progress at their next page, then the client

  Result<store::ReconcileRun> start_run(const std::string& source,
                                        const std::string& trigger) override;
  Result<store::Difference> resolve(const std::string& difference_id,
                                    const api::DifferenceResolution& resolution) override;
  // A whole run on the caller's thread (`hookd reconcile run`); the client must be started.
  Result<store::ReconcileRun> run_once(const std::string& source, const std::string& trigger);

 private:
  explicit ReconcileParts(ReconcileDeps deps) : deps_(std::move(deps)) {}
  Result<reconcile::Reconciler*> configured(const std::string& source);

  ReconcileDeps deps_;
  std::unique_ptr<net::HttpClient> client_;
  std::map<std::string, std::unique_ptr<reconcile::Reconciler>, std::less<>> reconcilers_;
  std::map<std::string, reconcile::Reconciler*, std::less<>> configured_;
  bool started_ = false;
};

// hookd_reconcile_differences{source,kind,state}, hookd_reconcile_oldest_open_seconds{source},
// hookd_reconcile_watermark_lag_seconds{source} (configured sources with a watermark).
void register_reconcile_gauges(ops::Registry& registry, store::ReconcileStore& store, Clock& clock,
                               std::vector<std::string> configured_sources);

}  // namespace hookd::app
