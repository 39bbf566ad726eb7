#include "store/retention_purger.hpp"

#include <algorithm>
#include <iterator>
#include <numeric>

namespace hookd::store {
namespace {

std::optional<Millis> before(Millis now, std::optional<Millis> period) {
  if (!period) return std::nullopt;
  return now - *period;
}

std::size_t slot_of(RetentionKind kind) {
  for (std::size_t i = 0; i < std::size(kRetentionKinds); ++i) {
    if (kRetentionKinds[i] == kind) return i;
  }
  return 0;
}

}  // namespace

std::vector<PurgeRequest> purge_requests(const PurgerOptions& options, Millis now) {
  const RetentionPolicy& policy = options.policy;
  const int limit = std::max(options.batch_size, 1);
  std::vector<PurgeRequest> out;
  auto add = [&](RetentionKind kind, std::optional<Millis> settled, std::optional<Millis> dead) {
    if (!settled && !dead) return;
    PurgeRequest r;
    r.kind = kind;
    r.settled_before = settled;
    r.dead_before = dead;
    r.limit = limit;
    r.reconcile_margin = options.reconcile_margin;
    out.push_back(std::move(r));
  };
  // A message is purged only once created before the delivered cutoff (retention.hpp).
  if (policy.delivered) {
    add(RetentionKind::kMessages, before(now, policy.delivered), before(now, policy.dead));
  }
  add(RetentionKind::kInbox, before(now, policy.inbox), before(now, policy.dead));
  add(RetentionKind::kAudit, before(now, policy.audit), std::nullopt);
  if (policy.expired_keys) {
    add(RetentionKind::kIdempotencyKeys, now, std::nullopt);
    add(RetentionKind::kProxyKeys, now, std::nullopt);
  }
  return out;
}

std::int64_t PassReport::deleted_total() const {
  return std::accumulate(deleted.begin(), deleted.end(), std::int64_t{0});
}

RetentionPurger::RetentionPurger(RetentionStore& store, Clock& clock, PurgerOptions options,
                                 ReportFn on_pass)
    : store_(store), clock_(clock), options_(std::move(options)), on_pass_(std::move(on_pass)) {}

RetentionPurger::~RetentionPurger() { stop(); }

void RetentionPurger::start() {
  if (options_.interval.count() <= 0 || thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stopping_ = false;
  }
  thread_ = std::thread([this] { run(); });
}

void RetentionPurger::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool RetentionPurger::wait(std::chrono::milliseconds d) {
  std::unique_lock lock(mu_);
  if (d.count() > 0) cv_.wait_for(lock, d, [this] { return stopping_; });
  return !stopping_;
}

void RetentionPurger::run() {
  if (!wait(std::min(options_.first_pass_after, options_.interval))) return;
  do {
    run_pass();
  } while (wait(options_.interval));
}

PassReport RetentionPurger::run_pass() {
  std::lock_guard pass(pass_mu_);
  PassReport report;
  report.started_at = clock_.now_ms();
  for (auto& request : purge_requests(options_, report.started_at)) {
    if (!purge_kind(request, slot_of(request.kind), report)) break;
  }
  if (!report.error && !report.interrupted && report.deleted_total() > 0) reclaim(report);
  if (auto stats = store_.retention_stats())
    report.stats = std::move(*stats);
  else if (!report.error)
    report.error = stats.error();
  report.finished_at = clock_.now_ms();
  if (on_pass_) on_pass_(report);
  return report;
}

// Batches of one kind until the store says done; false when the pass must end.
bool RetentionPurger::purge_kind(PurgeRequest request, std::size_t slot, PassReport& report) {
  for (;;) {
    auto batch = store_.purge_batch(request);
    if (!batch) {
      report.error = batch.error();
      return false;
    }
    ++report.batches;
    report.deleted[slot] += batch->deleted;
    if (batch->done) return true;
    request.after_id = batch->last_id;
    if (!wait(options_.pause)) {  // the writer's turn; stop() ends the pass here
      report.interrupted = true;
      return false;
    }
  }
}

void RetentionPurger::reclaim(PassReport& report) {
  const int step = options_.reclaim_pages;
  while (step > 0) {
    auto freed = store_.reclaim_space(step);
    if (!freed) {
      report.error = freed.error();
      return;
    }
    report.reclaimed_pages += *freed;
    if (*freed < step || !wait(options_.pause)) return;
  }
}

}  // namespace hookd::store
