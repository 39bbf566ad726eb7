// The RetentionStore on PostgreSQL (store/retention.hpp): the shared statements with $n
// parameters, one transaction per batch; plain DELETEs on the primary keys and the expiry
// indexes (autovacuum makes the space reusable, so reclaim_space has nothing to do).
#include <algorithm>

#include "hookd/result.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"
#include "store/retention_sql.hpp"

namespace hookd::store::postgres {
namespace {

// "?1" -> "$1": the shared statements have no other question marks.
std::string pg_sql(std::string sql) {
  std::replace(sql.begin(), sql.end(), '?', '$');
  return sql;
}

Result<PurgeBatch> purge_scanned(PgConnection& c, const PurgeRequest& req) {
  HOOKD_TRY(rows, c.query(pg_sql(retention_scan_sql(req.kind)),
                          Params().add_all(req.after_id, std::int64_t{req.limit})));
  std::vector<std::pair<std::string, Millis>> scanned;
  for (int i = 0; i < rows.size(); ++i) scanned.emplace_back(rows.text(i, 0), rows.int64(i, 1));
  const ScanCut cut = cut_scan(scanned, req);
  int deleted = 0;
  if (!cut.last_old_id.empty()) {
    Params params;
    params.add_all(req.after_id, cut.last_old_id, req.settled_before);
    const int count = retention_delete_range_params(req.kind);
    if (count >= 4) params.add(req.dead_before);
    if (count >= 5) params.add(req.reconcile_margin);
    HOOKD_TRY(del, c.query(pg_sql(retention_delete_range_sql(req.kind)), params));
    deleted = static_cast<int>(del.affected());
  }
  return scanned_batch(req, cut, scanned.size(), deleted);
}

Result<PurgeBatch> purge_keys(PgConnection& c, const PurgeRequest& req) {
  if (!req.settled_before) return PurgeBatch{0, "", true};
  HOOKD_TRY(del, c.query(pg_sql(retention_delete_keys_sql(req.kind)),
                         Params().add_all(*req.settled_before, std::int64_t{req.limit})));
  const auto deleted = static_cast<int>(del.affected());
  return PurgeBatch{deleted, "", deleted < req.limit};
}

}  // namespace

Result<PurgeBatch> PgStore::purge_batch(const PurgeRequest& request) {
  return write([&](PgConnection& c) -> Result<PurgeBatch> {
    return is_scanned_kind(request.kind) ? purge_scanned(c, request) : purge_keys(c, request);
  });
}

Result<std::vector<RetentionStat>> PgStore::retention_stats() {
  return read([&](PgConnection& c) -> Result<std::vector<RetentionStat>> {
    std::vector<RetentionStat> stats;
    for (const auto kind : kRetentionKinds) {
      HOOKD_TRY(rows, c.query(retention_stat_sql(kind)));
      stats.push_back(RetentionStat{kind, rows.int64(0, 0), rows.opt_int64(0, 1)});
    }
    return stats;
  });
}

Result<std::int64_t> PgStore::reclaim_space(int /*max_pages*/) { return std::int64_t{0}; }

}  // namespace hookd::store::postgres
