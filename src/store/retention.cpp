// Names and the scan-stop rule of store/retention.hpp.
#include "store/retention.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "store/retention_sql.hpp"

namespace hookd::store {

std::string_view to_string(RetentionKind kind) {
  switch (kind) {
    case RetentionKind::kMessages:
      return "messages";
    case RetentionKind::kInbox:
      return "inbox";
    case RetentionKind::kAudit:
      return "audit";
    case RetentionKind::kIdempotencyKeys:
      return "idempotency_keys";
    case RetentionKind::kProxyKeys:
      return "proxy_keys";
  }
  return "unknown";
}

bool past_youngest_cutoff(const PurgeRequest& request, Millis at) {
  // A message is only purged once created before settled_before, whatever its deliveries.
  const bool dead_counts = request.kind == RetentionKind::kInbox;
  std::optional<Millis> youngest = request.settled_before;
  if (dead_counts && request.dead_before) {
    youngest = std::max(youngest.value_or(*request.dead_before), *request.dead_before);
  }
  return !youngest || at >= *youngest;
}

}  // namespace hookd::store

// ---- retention_sql.hpp ----
namespace hookd::store {
namespace {

struct ScannedTable {
  const char* table;
  const char* time_column;
};

ScannedTable scanned_table(RetentionKind kind) {
  switch (kind) {
    case RetentionKind::kInbox:
      return {"inbox", "received_at"};
    case RetentionKind::kAudit:
      return {"audit_log", "at"};
    default:
      return {"messages", "created_at"};
  }
}

const char* key_table(RetentionKind kind) {
  return kind == RetentionKind::kProxyKeys ? "proxy_keys" : "idempotency_keys";
}

}  // namespace

bool is_scanned_kind(RetentionKind kind) {
  return kind == RetentionKind::kMessages || kind == RetentionKind::kInbox ||
         kind == RetentionKind::kAudit;
}

std::string retention_scan_sql(RetentionKind kind) {
  const auto t = scanned_table(kind);
  return fmt::format("SELECT id, {} FROM {} WHERE id > ?1 ORDER BY id LIMIT ?2", t.time_column,
                     t.table);
}

// An unset cutoff becomes 0: no row is older than that.
std::string retention_delete_range_sql(RetentionKind kind) {
  switch (kind) {
    case RetentionKind::kInbox:
      return "DELETE FROM inbox WHERE id > ?1 AND id <= ?2 AND ("
             "(status IN ('processed', 'stale', 'superseded', 'duplicate-business-key') AND "
             "received_at < COALESCE(CAST(?3 AS BIGINT), 0)) OR "
             "(status = 'dead' AND received_at < COALESCE(CAST(?4 AS BIGINT), 0))) AND "
             "NOT EXISTS (SELECT 1 FROM reconcile_differences d WHERE d.source = inbox.source "
             "AND d.event_id = inbox.event_id AND d.state = 'open') AND "
             "NOT EXISTS (SELECT 1 FROM reconcile_sources s WHERE s.source = inbox.source AND "
             "(s.watermark_at IS NULL OR inbox.received_at >= s.watermark_at - "
             "CAST(?5 AS BIGINT)))";
    case RetentionKind::kAudit:
      return "DELETE FROM audit_log WHERE id > ?1 AND id <= ?2 AND "
             "at < COALESCE(CAST(?3 AS BIGINT), 0)";
    default:
      return "DELETE FROM messages WHERE id > ?1 AND id <= ?2 AND "
             "created_at < COALESCE(CAST(?3 AS BIGINT), 0) AND NOT EXISTS (SELECT 1 FROM "
             "deliveries d WHERE d.msg_id = messages.id AND NOT ("
             "(d.status IN ('delivered', 'discarded') AND "
             "d.updated_at < COALESCE(CAST(?3 AS BIGINT), 0)) OR "
             "(d.status = 'dead' AND d.updated_at < COALESCE(CAST(?4 AS BIGINT), 0))))";
  }
}

int retention_delete_range_params(RetentionKind kind) {
  switch (kind) {
    case RetentionKind::kAudit:
      return 3;
    case RetentionKind::kInbox:
      return 5;
    default:
      return 4;
  }
}

std::string retention_delete_keys_sql(RetentionKind kind) {
  if (kind == RetentionKind::kProxyKeys) {
    return "DELETE FROM proxy_keys WHERE id IN (SELECT id FROM proxy_keys WHERE state IN "
           "('completed', 'not_replayable') AND expires_at > 0 AND expires_at <= ?1 LIMIT ?2)";
  }
  return "DELETE FROM idempotency_keys WHERE (scope, key) IN (SELECT scope, key FROM "
         "idempotency_keys WHERE state = 'completed' AND expires_at <= ?1 LIMIT ?2)";
}

std::string retention_stat_sql(RetentionKind kind) {
  if (!is_scanned_kind(kind)) {
    return fmt::format("SELECT COUNT(*), MIN(created_at) FROM {}", key_table(kind));
  }
  const auto t = scanned_table(kind);
  return fmt::format("SELECT COUNT(*), (SELECT {0} FROM {1} ORDER BY id LIMIT 1) FROM {1}",
                     t.time_column, t.table);
}

ScanCut cut_scan(const std::vector<std::pair<std::string, Millis>>& rows,
                 const PurgeRequest& request) {
  ScanCut cut;
  for (const auto& [id, at] : rows) {
    if (past_youngest_cutoff(request, at)) {
      cut.reached_young = true;
      break;
    }
    cut.last_old_id = id;
  }
  return cut;
}

PurgeBatch scanned_batch(const PurgeRequest& request, const ScanCut& cut, std::size_t scanned,
                         int deleted) {
  PurgeBatch batch;
  batch.deleted = deleted;
  batch.last_id = cut.last_old_id.empty() ? request.after_id : cut.last_old_id;
  batch.done = cut.reached_young || cut.last_old_id.empty() ||
               scanned < static_cast<std::size_t>(std::max(request.limit, 1));
  return batch;
}

}  // namespace hookd::store
