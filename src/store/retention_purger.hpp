// RetentionPurger: deletes settled rows past their retention period in the background
// (docs/retention.md). A pass walks every kind in small batches (RetentionStore::purge_batch,
// one short transaction each) with a pause between them, so a purge of millions of rows never
// holds the writer for long; then gives freed pages back (reclaim_space) and reads the
// per-kind counts. The first pass runs `first_pass_after` (or `interval`, if shorter) after
// start(), then one every `interval`. What may be purged is decided by the store
// (store/retention.hpp): nothing unsettled is ever deleted, whatever the periods say.
// Thread-safety: start()/stop() from one thread; run_pass() may be called from any thread
// (passes are serialized); the report callback runs on the thread that ran the pass.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "hookd/env.hpp"
#include "hookd/result.hpp"
#include "store/retention.hpp"

namespace hookd::store {

// Retention periods; unset = kept forever.
struct RetentionPolicy {
  std::optional<Millis> delivered = Millis{30} * 86'400'000;  // messages all delivered
  std::optional<Millis> dead = Millis{90} * 86'400'000;       // dead letters (both ways)
  std::optional<Millis> inbox = Millis{30} * 86'400'000;      // final inbound events
  std::optional<Millis> audit = Millis{365} * 86'400'000;     // audit entries
  bool expired_keys = true;  // completed idempotency / proxy keys past their TTL
};

struct PurgerOptions {
  RetentionPolicy policy;
  std::chrono::milliseconds interval = std::chrono::minutes(10);  // 0: no background passes
  std::chrono::milliseconds first_pass_after = std::chrono::minutes(1);
  int batch_size = 500;                                             // rows per batch
  std::chrono::milliseconds pause = std::chrono::milliseconds(20);  // between batches
  int reclaim_pages = 1000;  // pages per reclaim step (SQLite incremental_vacuum)
  // Inbound events stay until their source's reconcile watermark is this far past them
  // (PurgeRequest::reconcile_margin): at least the longest reconcile overlap.
  Millis reconcile_margin = 86'400'000;
};

// The batches a pass starts with, one per kind with something to purge, at `now`.
std::vector<PurgeRequest> purge_requests(const PurgerOptions& options, Millis now);

struct PassReport {
  Millis started_at = 0;
  Millis finished_at = 0;
  std::array<std::int64_t, std::size(kRetentionKinds)> deleted{};  // kRetentionKinds order
  std::int64_t batches = 0;
  std::int64_t reclaimed_pages = 0;
  std::vector<RetentionStat> stats;  // after the pass; empty when reading them failed
  std::optional<Error> error;        // the first failure; the pass stopped there
  bool interrupted = false;          // stop() cut the pass short
  std::int64_t deleted_total() const;
};

class RetentionPurger {
 public:
  using ReportFn = std::function<void(const PassReport&)>;
  // `store` and `clock` must outlive the purger.
  RetentionPurger(RetentionStore& store, Clock& clock, PurgerOptions options,
                  ReportFn on_pass = {});
  ~RetentionPurger();  // stop()
  RetentionPurger(const RetentionPurger&) = delete;
  RetentionPurger& operator=(const RetentionPurger&) = delete;

  void start();  // no-op when interval is 0
  // Ends a pass in progress at its next batch boundary and joins the thread. Idempotent.
  void stop();
  // One whole pass now (tests, `hookd` tools); also reported to on_pass.
  PassReport run_pass();

 private:
  void run();
  // Waits `d` unless stop() comes first; false when stopping.
  bool wait(std::chrono::milliseconds d);
  bool purge_kind(PurgeRequest request, std::size_t slot, PassReport& report);
  void reclaim(PassReport& report);

  RetentionStore& store_;
  Clock& clock_;
  const PurgerOptions options_;
  const ReportFn on_pass_;
  std::mutex pass_mu_;  // one pass at a time
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace hookd::store
