// Retention: deleting settled rows once their retention period is over, in small batches
// (docs/retention.md). One aggregate interface of the Store and its records; the purger that
// drives it is store/retention_purger.hpp.
//
// What each kind purges, and what it never touches:
//   messages  a message with its deliveries and their attempts, once it was created before
//             `settled_before` and every delivery is settled: delivered/discarded and last
//             changed before `settled_before`, or dead and last changed before `dead_before`
//             (a message with a dead letter stays while dead_before is unset). Never one
//             with a pending or delivering delivery.
//   inbox     an inbound event with its history, received before `settled_before` and final
//             (processed, stale, superseded, duplicate-business-key), or dead and received
//             before `dead_before`. Never an open one (received, processing, retry, parked),
//             never one an open reconciliation difference points at, and never one its
//             source's reconciler may still read: a source with reconciliation keeps its
//             events until its watermark is `reconcile_margin` past them (all of them while
//             it has no watermark yet), else the next run would find them "missing".
//   audit     audit entries recorded before `settled_before`.
//   idempotency_keys / proxy_keys  completed (and not_replayable) keys that expired at or
//             before `settled_before` (the purger passes "now"; a key is expired from its
//             expires_at on, as idem_begin sees it). Never in-flight, claimed or unknown ones.
// Scanning: messages, inbox and audit are walked in id order (ids sort in creation order,
// IdGenerator), `limit` rows per batch from `after_id`; a batch that reaches a row created at
// or after the youngest cutoff ends the pass (`done`), so a pass reads the old rows once and
// never the young ones. The key kinds delete up to `limit` expired rows per batch.
// Thread-safety: as Store (every method may be called concurrently).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "store/model.hpp"

namespace hookd::store {

enum class RetentionKind { kMessages, kInbox, kAudit, kIdempotencyKeys, kProxyKeys };

inline constexpr RetentionKind kRetentionKinds[] = {
    RetentionKind::kMessages, RetentionKind::kInbox, RetentionKind::kAudit,
    RetentionKind::kIdempotencyKeys, RetentionKind::kProxyKeys};

// "messages", "inbox", "audit", "idempotency_keys", "proxy_keys" (metric labels).
std::string_view to_string(RetentionKind kind);

struct PurgeRequest {
  RetentionKind kind = RetentionKind::kMessages;
  std::optional<Millis> settled_before;  // unset: nothing of this kind is purged
  std::optional<Millis> dead_before;     // messages, inbox: dead letters; unset: kept
  std::string after_id;                  // messages, inbox, audit: continue after this id
  int limit = 500;                       // rows examined (scanned kinds) or deleted (keys)
  Millis reconcile_margin = 86'400'000;  // inbox: see the header comment
};

struct PurgeBatch {
  int deleted = 0;      // top-level rows (a message's deliveries and attempts go with it)
  std::string last_id;  // scanned kinds: where the next batch of this pass continues
  bool done = false;    // nothing more to do in this pass
};

struct RetentionStat {
  RetentionKind kind = RetentionKind::kMessages;
  std::int64_t rows = 0;
  std::optional<Millis> oldest_at;  // creation time of the oldest row; none when empty
};

// Whether a row created at `at` is too young for every cutoff of `request` (so are the rows
// after it: scanning can stop). Unset cutoffs do not count (for messages only
// settled_before does); with none, nothing is purgeable.
bool past_youngest_cutoff(const PurgeRequest& request, Millis at);

class RetentionStore {
 public:
  virtual ~RetentionStore() = default;
  // One batch, in one transaction (durable, as every write). See the header comment.
  virtual Result<PurgeBatch> purge_batch(const PurgeRequest& request) = 0;
  // Rows and the oldest row per kind (kRetentionKinds order). Reads, never blocks writers.
  virtual Result<std::vector<RetentionStat>> retention_stats() = 0;
  // Gives at most `max_pages` free pages back to the file system: SQLite's
  // incremental_vacuum on a database created with auto_vacuum=INCREMENTAL (others reuse free
  // pages but do not shrink); 0 on PostgreSQL, whose autovacuum does this. Returns the pages
  // given back.
  virtual Result<std::int64_t> reclaim_space(int max_pages) = 0;
};

}  // namespace hookd::store
