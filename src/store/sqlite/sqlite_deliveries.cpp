// The delivery queue on SQLite: claim with leases (FIFO head-of-line per endpoint and
// ordering key), record an attempt and the next state in one transaction, release leases.
#include <fmt/format.h>
#include <algorithm>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

// Due, not leased (or lease expired), endpoint enabled, and for FIFO endpoints no open
// delivery with the same ordering key and a lower sequence. Walks deliveries_due in index
// order (next_attempt_at, rowid), so the cost is the rows it takes, not the backlog: forced
// with INDEXED BY (without statistics the planner would scan by status and sort them all),
// and rowid (insertion order) breaks ties instead of a sort on id. A claimed row's
// next_attempt_at becomes its lease expiry, so held rows drop out of the walk's prefix.
constexpr std::string_view kClaimSql = R"sql(
UPDATE deliveries SET status = 'delivering', lease_owner = ?1, lease_until = ?2,
  next_attempt_at = ?2, updated_at = ?3
WHERE rowid IN (
  SELECT d.rowid FROM deliveries d INDEXED BY deliveries_due JOIN endpoints e ON e.id = d.endpoint_id
  WHERE d.status IN ('pending', 'delivering') AND d.next_attempt_at <= ?3
    AND (d.lease_until IS NULL OR d.lease_until <= ?3)
    AND e.disabled = 0
    AND (e.fifo = 0 OR d.ordering_key IS NULL OR NOT EXISTS (
      SELECT 1 FROM deliveries o
      WHERE o.endpoint_id = d.endpoint_id AND o.ordering_key = d.ordering_key
        AND o.status IN ('pending', 'delivering') AND o.sequence < d.sequence))
  ORDER BY d.next_attempt_at, d.rowid LIMIT ?4)
RETURNING {}, (SELECT e.revision FROM endpoints e WHERE e.id = deliveries.endpoint_id))sql";

constexpr std::string_view kRecordSql = R"sql(
UPDATE deliveries SET status = ?1, attempts = attempts + 1,
  next_attempt_at = COALESCE(?2, ?3), lease_owner = NULL, lease_until = NULL,
  first_attempt_at = COALESCE(first_attempt_at, ?3), last_attempt_at = ?3, last_error = ?4,
  last_response_status = ?5, updated_at = ?6
WHERE id = ?7 AND lease_owner = ?8 AND status = 'delivering'
RETURNING {})sql";

Status insert_attempt(Connection& c, const Attempt& a) {
  HOOKD_TRY(ins,
            c.prepare(fmt::format("INSERT INTO attempts ({}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                                  kAttemptColumns)));
  ins.bind_all(a.id, a.delivery_id, a.msg_id, a.endpoint_id, a.app_id, a.attempted_at,
               a.response_status, encode_headers(a.response_headers));
  ins.bind_blob(9, a.response_body);
  ins.bind(10, a.duration_ms).bind(11, a.error).bind(12, a.success);
  ins.bind(13, to_string(a.trigger)).bind(14, a.url);
  return ins.run();
}

}  // namespace

Result<std::vector<Delivery>> SqliteStore::claim_in_tx(Connection& c, const ClaimRequest& req,
                                                       Millis now) {
  HOOKD_TRY(q, c.prepare(fmt::format(kClaimSql, kDeliveryColumns)));
  q.bind_all(req.lease_owner, now + req.lease_ms, now, std::max(req.limit, 0));
  HOOKD_TRY(rows, collect<Delivery>(q, read_claimed_delivery));
  std::sort(rows.begin(), rows.end(), oldest_due_first);
  return std::move(rows);
}

Result<std::vector<Delivery>> SqliteStore::claim_due(const ClaimRequest& req) {
  return write([&](Connection& c) { return claim_in_tx(c, req, clock_.now_ms()); });
}

Result<Delivery> SqliteStore::record_attempt_in_tx(Connection& c, const AttemptReport& report,
                                                   Millis now) {
  Attempt a = report.attempt;
  if (a.attempted_at == 0) a.attempted_at = now;
  a.success = report.next == AttemptReport::Next::kDelivered;
  const bool retry = report.next == AttemptReport::Next::kRetry;
  HOOKD_TRY(up, c.prepare(fmt::format(kRecordSql, kDeliveryColumns)));
  up.bind_all(to_string(status_after(report.next)),
              retry ? std::optional<Millis>(report.next_attempt_at) : std::nullopt, a.attempted_at,
              last_error_of(a), a.response_status, now, report.delivery_id, report.lease_owner);
  HOOKD_TRY(found, up.step());
  if (!found) {
    return fail(ErrorCode::kConflict, "lease on delivery " + report.delivery_id + " lost");
  }
  Delivery d = read_delivery(up);
  HOOKD_CHECK(up.run());  // finish the statement before the next one
  a.id = ids_.next(id_prefix::kAttempt);
  a.delivery_id = d.id;
  a.msg_id = d.msg_id;
  a.endpoint_id = d.endpoint_id;
  a.app_id = d.app_id;
  HOOKD_CHECK(insert_attempt(c, a));
  return d;
}

Result<Delivery> SqliteStore::record_attempt(const AttemptReport& report) {
  return write([&](Connection& c) { return record_attempt_in_tx(c, report, clock_.now_ms()); });
}

Result<std::vector<Result<Delivery>>> SqliteStore::record_attempts_in_tx(
    Connection& c, const std::vector<AttemptReport>& reports, Millis now) {
  std::vector<Result<Delivery>> out;
  out.reserve(reports.size());
  for (const auto& report : reports) {
    // A failed item (lost lease) leaves no trace, the others commit. No savepoint per item
    // (it would copy every page the item touches into the statement journal):
    // record_attempt_in_tx reports kConflict only when its UPDATE matched no row, i.e.
    // before it wrote anything.
    auto r = record_attempt_in_tx(c, report, now);
    if (!r && r.error().code != ErrorCode::kConflict) return std::unexpected(r.error());
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<Result<Delivery>>> SqliteStore::record_attempts(
    const std::vector<AttemptReport>& reports) {
  return write([&](Connection& c) { return record_attempts_in_tx(c, reports, clock_.now_ms()); });
}

Result<int> SqliteStore::release_leases(const std::string& lease_owner) {
  return write([&](Connection& c) -> Result<int> {
    HOOKD_TRY(up, c.prepare("UPDATE deliveries SET status = 'pending', lease_owner = NULL, "
                            "lease_until = NULL, next_attempt_at = ?1, updated_at = ?1 "
                            "WHERE lease_owner = ?2 AND status = 'delivering'"));
    HOOKD_CHECK(up.bind_all(clock_.now_ms(), lease_owner).run());
    return static_cast<int>(c.changes());
  });
}

Result<int> SqliteStore::defer_in_tx(Connection& c, const std::vector<Deferral>& items,
                                     const std::string& lease_owner, Millis now) {
  int changed = 0;
  for (const auto& item : items) {
    // Cached per SQL text; each borrow is a freshly reset statement.
    HOOKD_TRY(up, c.prepare("UPDATE deliveries SET status = 'pending', next_attempt_at = ?, "
                            "lease_owner = NULL, lease_until = NULL, updated_at = ? "
                            "WHERE id = ? AND lease_owner = ? AND status = 'delivering'"));
    HOOKD_CHECK(up.bind_all(item.next_attempt_at, now, item.delivery_id, lease_owner).run());
    changed += static_cast<int>(c.changes());
  }
  return changed;
}

Result<int> SqliteStore::defer_deliveries(const std::vector<Deferral>& items,
                                          const std::string& lease_owner) {
  return write([&](Connection& c) { return defer_in_tx(c, items, lease_owner, clock_.now_ms()); });
}

Result<Delivery> SqliteStore::get_delivery(const std::string& id) {
  return read([&](Connection& c) -> Result<Delivery> {
    HOOKD_TRY(q,
              c.prepare(fmt::format("SELECT {} FROM deliveries WHERE id = ?", kDeliveryColumns)));
    q.bind_all(id);
    return single<Delivery>(q, read_delivery, "delivery");
  });
}

Result<std::vector<Delivery>> SqliteStore::list_deliveries_for_message(const std::string& msg_id) {
  return read([&](Connection& c) -> Result<std::vector<Delivery>> {
    HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM deliveries WHERE msg_id = ? ORDER BY id",
                                       kDeliveryColumns)));
    q.bind_all(msg_id);
    return collect<Delivery>(q, read_delivery);
  });
}

Result<std::int64_t> SqliteStore::count_deliveries(DeliveryStatus status) {
  return read([&](Connection& c) -> Result<std::int64_t> {
    HOOKD_TRY(q, c.prepare("SELECT COUNT(*) FROM deliveries WHERE status = ?"));
    q.bind_all(to_string(status));
    HOOKD_TRY(row, q.step());
    (void)row;
    return q.int64(0);
  });
}

namespace {

// The single nullable integer a MIN() query answers.
Result<std::optional<Millis>> min_of(Connection& c, const char* sql) {
  HOOKD_TRY(q, c.prepare(sql));
  HOOKD_TRY(row, q.step());
  (void)row;
  return q.opt_int64(0);
}

}  // namespace

Result<std::optional<Millis>> SqliteStore::oldest_waiting_delivery() {
  return read([&](Connection& c) {
    return min_of(c,
                  "SELECT MIN(created_at) FROM deliveries WHERE status IN ('pending', "
                  "'delivering')");
  });
}

Result<std::optional<Millis>> SqliteStore::inbox_oldest_waiting() {
  return read([&](Connection& c) {
    return min_of(c,
                  "SELECT MIN(received_at) FROM inbox WHERE status IN ('received', 'processing', "
                  "'retry', 'parked')");
  });
}

}  // namespace hookd::store::sqlite
