// Reconciler: see reconciler.hpp. A run: begin (the lease) -> feed pages -> finish. Each page
// is fetched, read (feed_page.hpp) and applied in one store transaction; a failure stops the
// run with that error and leaves the cursor where the last applied page put it.
// Thread-safety: `mutex_` guards the worker and interval threads; `running_` keeps one run
// of this reconciler at a time on this node; `stopping_` ends a run at its next page.
#include "reconcile/reconciler.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/alert_types.hpp"
#include "reconcile/entity_checks.hpp"
#include "reconcile/feed_page.hpp"
#include "reconcile/page_fetch.hpp"

namespace hookd::reconcile {
namespace {

// Why a page answer cannot be read, or "" when it can.
std::string answer_problem(const net::AttemptResult& answer, std::size_t max_bytes) {
  if (!answer.ok()) {
    return "feed page: " + std::string(net::to_string(answer.error)) +
           (answer.error_detail.empty() ? "" : ": " + answer.error_detail);
  }
  if (answer.status < 200 || answer.status > 299) {
    return "feed page: HTTP " + std::to_string(answer.status);
  }
  if (answer.truncated || answer.body_file || answer.body.size() > max_bytes) {
    return "feed page: larger than max_page_bytes (" + std::to_string(max_bytes) + ")";
  }
  return "";
}

// hookd_reconcile_runs_total{source,result} and hookd_reconcile_run_seconds{source}; both
// families are shared by every source's reconciler (the registry hands out the same family).
struct RunMetrics {
  ops::CounterFamily* runs = nullptr;
  ops::HistogramFamily* seconds = nullptr;

  explicit RunMetrics(ops::Registry* registry) {
    if (registry == nullptr) return;
    runs = &registry->counter("hookd_reconcile_runs_total",
                              "Reconcile runs closed, by source and result (ok, failed).",
                              {"source", "result"});
    seconds = &registry->histogram("hookd_reconcile_run_seconds",
                                   "Duration of one reconcile run, by source.",
                                   ops::latency_buckets_seconds(), {"source"});
  }
  void closed(const std::string& source, bool ok, double elapsed_seconds) const {
    if (runs) runs->with({source, ok ? "ok" : "failed"}).inc();
    if (seconds) seconds->with({source}).observe(elapsed_seconds);
  }
};

}  // namespace

struct Reconciler::Impl {
  ReconcileOptions options;
  ReconcilerDeps deps;

  std::mutex mutex;
  std::condition_variable wake;
  std::atomic<bool> running{false};
  std::atomic<bool> stopping{false};
  bool interval_started = false;
  std::jthread interval_thread;
  std::jthread worker;

  RunMetrics metrics;

  Impl(ReconcileOptions o, ReconcilerDeps d)
      : options(std::move(o)), deps(std::move(d)), metrics(deps.registry) {}

  const std::string& source() const { return deps.source->name(); }

  Result<store::ReconcileStart> begin(const std::string& trigger) {
    bool expected = false;
    if (!running.compare_exchange_strong(expected, true)) {
      return fail(ErrorCode::kConflict, "a reconcile run of " + source() + " is in progress");
    }
    auto start = deps.reconcile_store.reconcile_begin(source(), options.lease_owner,
                                                      options.lease.count(), trigger);
    if (!start) running = false;
    return start;
  }

  // The feed walk; returns the error the run stops with, or nullopt.
  std::optional<std::string> walk(const store::ReconcileStart& start) {
    if (options.feed_url.empty()) return std::nullopt;
    std::optional<store::Millis> watermark = start.cursor.watermark_at;
    const WalkStart from = walk_start(options, start.cursor.cursor, watermark);
    std::string cursor = from.cursor;
    const store::Millis started = deps.clock.now_ms();
    for (int n = 0; n < options.max_pages_per_run; ++n) {
      if (stopping) return "stopped";
      if (deps.clock.now_ms() - started > options.max_run_time.count()) {
        return "max_run_time reached";
      }
      const std::string url = page_url(options, cursor, from.since);
      auto answer = fetch_page(deps.http, url, options.feed_token, options.page_timeout);
      if (auto problem = answer_problem(answer, options.max_page_bytes); !problem.empty()) {
        return problem + " (GET " + url + ")";
      }
      auto page = read_feed_page(options, *deps.source, answer.body);
      if (!page) return page.error().message + " (GET " + url + ")";
      if (page->newest_item_ms && (!watermark || *page->newest_item_ms > *watermark)) {
        watermark = page->newest_item_ms;
      }
      store::ReconcilePage apply;
      apply.source = source();
      apply.run_id = start.run.id;
      apply.lease_owner = options.lease_owner;
      apply.items = std::move(page->items);
      apply.repair = options.repair == RepairMode::kAuto;
      apply.next_cursor = page->next_cursor.value_or(cursor);
      apply.watermark_at = watermark;
      apply.lease_ms = options.lease.count();
      apply.evidence = evidence_of(url, answer);
      const bool empty = apply.items.empty();
      if (auto applied = deps.reconcile_store.reconcile_apply_page(apply); !applied) {
        return "applying a feed page: " + applied.error().message;
      }
      const bool moved = apply.next_cursor != cursor;
      cursor = apply.next_cursor;
      if (page->done || empty || !moved) return std::nullopt;
    }
    return std::nullopt;
  }

  // Continues an opened run to its end and closes it.
  Result<store::ReconcileRun> finish(const store::ReconcileStart& start) {
    const store::Millis began = deps.clock.now_ms();
    std::optional<std::string> error;
    try {
      error = walk(start);
      if (!error && stopping) error = "stopped";
      if (!error) error = check_stuck(options, deps, start.run.id);
      if (!error) error = hand_off_parked(options, deps, start.run.id);
    } catch (const std::exception& e) {
      error = std::string("internal: ") + e.what();
    }
    auto closed =
        deps.reconcile_store.reconcile_finish(start.run.id, options.lease_owner, std::move(error));
    running = false;
    metrics.closed(source(), closed && !closed->error,
                   static_cast<double>(deps.clock.now_ms() - began) / 1000.0);
    log_closed(start.run.id, closed);
    if (closed && closed->differences_found > 0) {
      ops::raise_alert(deps.alerts, alert_types::kReconcileDifference,
                       {{"source", source()},
                        {"runId", closed->id},
                        {"differencesFound", closed->differences_found},
                        {"repaired", closed->repaired}});
    }
    return closed;
  }

  // One line per run: what it read and found, or why it failed (never the feed token).
  void log_closed(const std::string& run_id, const Result<store::ReconcileRun>& closed) const {
    if (deps.logger == nullptr) return;
    if (!closed) {
      deps.logger->error(
          "reconcile.run_not_closed",
          {{"source", source()}, {"run", run_id}, {"error", closed.error().message}});
      return;
    }
    const auto& r = *closed;
    if (r.error) {
      deps.logger->warn("reconcile.run_failed", {{"source", source()},
                                                 {"run", r.id},
                                                 {"items_read", r.items_read},
                                                 {"differences", r.differences_found},
                                                 {"error", *r.error}});
    } else {
      deps.logger->info("reconcile.run_finished", {{"source", source()},
                                                   {"run", r.id},
                                                   {"items_read", r.items_read},
                                                   {"differences", r.differences_found},
                                                   {"repaired", r.repaired}});
    }
  }

  Result<store::ReconcileRun> run_once(const std::string& trigger) {
    HOOKD_TRY(start, begin(trigger));
    return finish(start);
  }

  Result<store::ReconcileRun> start_run(const std::string& trigger) {
    std::lock_guard lock(mutex);
    HOOKD_TRY(start, begin(trigger));
    if (worker.joinable()) worker.join();  // the previous run has ended (running was false)
    worker = std::jthread([this, start] { (void)finish(start); });
    return start.run;
  }

  void interval_loop(std::stop_token token) {
    std::unique_lock lock(mutex);
    while (!token.stop_requested()) {
      wake.wait_for(lock, options.interval, [&] { return token.stop_requested(); });
      if (token.stop_requested()) return;
      lock.unlock();
      (void)run_once("interval");  // kConflict: another node (or start_run) runs it now
      lock.lock();
    }
  }

  void start() {
    std::lock_guard lock(mutex);
    if (interval_started || options.interval.count() <= 0) return;
    interval_started = true;
    interval_thread = std::jthread([this](std::stop_token token) { interval_loop(token); });
  }

  void stop() {
    stopping = true;
    std::jthread interval, run;
    {
      std::lock_guard lock(mutex);
      if (interval_thread.joinable()) interval_thread.request_stop();
      interval = std::move(interval_thread);
      run = std::move(worker);
      interval_started = false;
    }
    wake.notify_all();
    if (interval.joinable()) interval.join();
    if (run.joinable()) run.join();
    stopping = false;
  }

  Result<store::Difference> resolve(const std::string& id, const Resolution& r) {
    HOOKD_TRY(difference, deps.reconcile_store.reconcile_get_difference(id));
    if (difference.source != source()) {
      return fail(ErrorCode::kNotFound, "difference " + id + " is not of source " + source());
    }
    store::DifferenceAct act;
    act.difference_id = id;
    act.action = r.action;
    act.by = r.audit.actor.empty() ? "operator" : r.audit.actor;
    act.reason = r.reason;
    act.audit = r.audit;
    if (r.action == store::DifferenceAction::kCorrectState) {
      if (!r.state || r.state->empty()) {
        return fail(ErrorCode::kInvalidArgument, "correct_state needs a state");
      }
      if (!difference.entity_key) {
        return fail(ErrorCode::kInvalidArgument,
                    "difference " + id + " names no entity; correct_state does not apply");
      }
      HOOKD_TRY(entity, entity_of(*difference.entity_key));
      entity.state = *r.state;
      entity.terminal = deps.source->is_terminal(*r.state);
      act.entity = std::move(entity);
    } else if (r.state) {
      return fail(ErrorCode::kInvalidArgument, "a state is only taken by correct_state");
    }
    return deps.reconcile_store.reconcile_act(act);
  }

  Result<store::InboxEntity> entity_of(const std::string& key) {
    auto entity = deps.inbox_store.inbox_entity(source(), key);
    if (entity) return entity;
    if (entity.error().code != ErrorCode::kNotFound) return std::unexpected(entity.error());
    store::InboxEntity fresh;
    fresh.source = source();
    fresh.entity_key = key;
    return fresh;
  }
};

Reconciler::Reconciler(ReconcileOptions options, ReconcilerDeps deps)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(deps))) {}

Reconciler::~Reconciler() { stop(); }

void Reconciler::start() { impl_->start(); }
void Reconciler::stop() { impl_->stop(); }

Result<store::ReconcileRun> Reconciler::start_run(const std::string& trigger) {
  return impl_->start_run(trigger);
}

Result<store::ReconcileRun> Reconciler::run_once(const std::string& trigger) {
  return impl_->run_once(trigger);
}

Result<store::Difference> Reconciler::resolve(const std::string& difference_id,
                                              const Resolution& r) {
  return impl_->resolve(difference_id, r);
}

}  // namespace hookd::reconcile
