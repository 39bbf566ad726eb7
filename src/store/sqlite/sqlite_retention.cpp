// The RetentionStore on SQLite (store/retention.hpp): batches of purgeable rows deleted in one
// write transaction each (the writer is free again between batches), counts per kind on a
// reader, and incremental_vacuum on databases created with auto_vacuum=INCREMENTAL.
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/retention_sql.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

using IdAt = std::pair<std::string, Millis>;

IdAt read_id_at(const Stmt& s) { return IdAt(s.text(0), s.int64(1)); }

Result<PurgeBatch> purge_scanned(Connection& c, const PurgeRequest& req) {
  HOOKD_TRY(scan, c.prepare(retention_scan_sql(req.kind)));
  scan.bind_all(req.after_id, req.limit);
  HOOKD_TRY(rows, collect<IdAt>(scan, read_id_at));
  const ScanCut cut = cut_scan(rows, req);
  int deleted = 0;
  if (!cut.last_old_id.empty()) {
    HOOKD_TRY(del, c.prepare(retention_delete_range_sql(req.kind)));
    del.bind_all(req.after_id, cut.last_old_id, req.settled_before);
    const int params = retention_delete_range_params(req.kind);
    if (params >= 4) del.bind(4, req.dead_before);
    if (params >= 5) del.bind(5, req.reconcile_margin);
    HOOKD_CHECK(del.run());
    deleted = static_cast<int>(c.changes());
  }
  return scanned_batch(req, cut, rows.size(), deleted);
}

Result<PurgeBatch> purge_keys(Connection& c, const PurgeRequest& req) {
  if (!req.settled_before) return PurgeBatch{0, "", true};
  HOOKD_TRY(del, c.prepare(retention_delete_keys_sql(req.kind)));
  HOOKD_CHECK(del.bind_all(*req.settled_before, req.limit).run());
  const auto deleted = static_cast<int>(c.changes());
  return PurgeBatch{deleted, "", deleted < req.limit};
}

Result<std::int64_t> pragma_value(Connection& c, std::string_view pragma) {
  HOOKD_TRY(q, c.prepare(pragma));
  HOOKD_TRY(row, q.step());
  return row ? q.int64(0) : 0;
}

}  // namespace

Result<PurgeBatch> SqliteStore::purge_batch(const PurgeRequest& request) {
  return write([&](Connection& c) -> Result<PurgeBatch> {
    return is_scanned_kind(request.kind) ? purge_scanned(c, request) : purge_keys(c, request);
  });
}

Result<std::vector<RetentionStat>> SqliteStore::retention_stats() {
  return read([&](Connection& c) -> Result<std::vector<RetentionStat>> {
    std::vector<RetentionStat> stats;
    for (const auto kind : kRetentionKinds) {
      HOOKD_TRY(q, c.prepare(retention_stat_sql(kind)));
      auto stat = single<RetentionStat>(
          q,
          [kind](const Stmt& s) {
            return RetentionStat{kind, s.int64(0), s.opt_int64(1)};
          },
          "retention stat");
      if (!stat) return std::unexpected(stat.error());
      stats.push_back(*stat);
    }
    return stats;
  });
}

Result<std::int64_t> SqliteStore::reclaim_space(int max_pages) {
  return write([&](Connection& c) -> Result<std::int64_t> {
    HOOKD_TRY(mode, pragma_value(c, "PRAGMA auto_vacuum"));
    if (mode != 2 || max_pages <= 0) return std::int64_t{0};  // 2 = INCREMENTAL
    HOOKD_TRY(before, pragma_value(c, "PRAGMA freelist_count"));
    HOOKD_CHECK(c.exec(fmt::format("PRAGMA incremental_vacuum({})", max_pages)));
    HOOKD_TRY(after, pragma_value(c, "PRAGMA freelist_count"));
    return before - after;
  });
}

}  // namespace hookd::store::sqlite
