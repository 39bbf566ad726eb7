// Reconciler: the inbound reconciler of one source (issue 15, SPEC §6, A21/A28/A29/A30,
// docs/reconciliation.md). A run takes the source's lease in the store (one run per source
// across nodes), walks the feed from the durable cursor / watermark - overlap, applies each
// page through ReconcileStore::reconcile_apply_page (the same dedup as the webhook path; the
// cursor moves only with the page's rows), checks stuck entities against status_url, hands
// off parked events past park_timeout (their dependency looked for in the feed; else
// released with hookd-dependency-missing), then closes the run. Every difference is recorded
// before it is repaired; only a terminal remote state drives an automatic repair.
// Thread-safety: start/stop from one thread; start_run, run_once and resolve from any thread.
// At most one run of this reconciler at a time on this node (start_run answers kConflict).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "hookd/env.hpp"
#include "hookd/result.hpp"
#include "inbound/source.hpp"
#include "net/http_sender.hpp"
#include "ops/alerts.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"
#include "reconcile/reconcile_options.hpp"
#include "store/reconcile.hpp"
#include "store/store.hpp"

namespace hookd::reconcile {

struct ReconcilerDeps {
  store::ReconcileStore& reconcile_store;
  store::InboxStore& inbox_store;
  net::HttpSender& http;  // feed pages and status calls (already started)
  Clock& clock;
  std::shared_ptr<const inbound::Source> source;  // name, terminal states, entity/state fields
  // null: no metrics; else hookd_reconcile_runs_total{source,result} (ok, failed) and
  // hookd_reconcile_run_seconds{source} per closed run
  ops::Registry* registry = nullptr;
  const ops::Logger* logger = nullptr;  // null: no logs; else one line per closed run
  // null: no alerts; else hookd.reconcile.difference once per run that found differences
  ops::AlertSink* alerts = nullptr;
};

// A person's action on a difference (the API's DifferenceResolution without its type).
struct Resolution {
  store::DifferenceAction action = store::DifferenceAction::kRepair;
  std::optional<std::string> state;  // correct_state
  std::string reason;
  store::AuditEntry audit;
};

class Reconciler {
 public:
  Reconciler(ReconcileOptions options, ReconcilerDeps deps);
  ~Reconciler();  // stops
  Reconciler(const Reconciler&) = delete;
  Reconciler& operator=(const Reconciler&) = delete;

  // Starts the interval thread (nothing when interval is 0). Idempotent.
  void start();
  // Ends a run in progress at its next page or call (the run is closed with an error, the
  // lease released) and joins the threads.
  void stop();

  // Takes the lease, opens the run and continues it on a background thread; returns the run
  // as opened. kConflict when a run is in progress here or on another node.
  Result<store::ReconcileRun> start_run(const std::string& trigger);
  // A whole run on the caller's thread; returns the closed run.
  Result<store::ReconcileRun> run_once(const std::string& trigger);
  // Applies a person's action (validated: kInvalidArgument when it does not fit, kConflict
  // when the difference is not open); correct_state upserts the entity with the source's
  // terminal flag. Returns the difference after the action.
  Result<store::Difference> resolve(const std::string& difference_id, const Resolution& r);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hookd::reconcile
