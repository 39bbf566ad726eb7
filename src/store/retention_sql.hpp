// The SQL both engines share for the RetentionStore (store/retention.hpp), written with SQLite's
// numbered parameters (?1, ?2, ...; PostgreSQL turns them into $1, $2, ...), and the pure part of
// a scanned batch: where the old rows of a scan end.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "store/retention.hpp"

namespace hookd::store {

// Scanned kinds (messages, inbox, audit).
bool is_scanned_kind(RetentionKind kind);
// ?1 = after id, ?2 = limit -> rows (id, creation time) in id order.
std::string retention_scan_sql(RetentionKind kind);
// ?1 = after id, ?2 = last old id, ?3 = settled_before, ?4 = dead_before (NULL: unset; not in
// the audit statement), ?5 = reconcile_margin (inbox only): deletes the purgeable rows of the
// scanned range. retention_delete_range_params(kind) says how many it takes.
std::string retention_delete_range_sql(RetentionKind kind);
int retention_delete_range_params(RetentionKind kind);
// Key kinds: ?1 = expired before, ?2 = limit.
std::string retention_delete_keys_sql(RetentionKind kind);
// -> one row (count, creation time of the oldest row or NULL).
std::string retention_stat_sql(RetentionKind kind);

// What a scan found: the last id old enough for some cutoff (empty: none) and whether a row
// too young for all of them ended it.
struct ScanCut {
  std::string last_old_id;
  bool reached_young = false;
};
ScanCut cut_scan(const std::vector<std::pair<std::string, Millis>>& rows,
                 const PurgeRequest& request);

// The batch of a scanned kind once the range is deleted.
PurgeBatch scanned_batch(const PurgeRequest& request, const ScanCut& cut, std::size_t scanned,
                         int deleted);

}  // namespace hookd::store
