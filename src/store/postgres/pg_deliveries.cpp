// The delivery queue on PostgreSQL: batch claims with FOR UPDATE SKIP LOCKED and leases
// (FIFO head-of-line per endpoint and ordering key, across nodes), attempts recorded with
// the delivery's next state in one transaction — a whole batch in two statements.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>

#include "hookd/ids.hpp"
#include "store/postgres/pg_arrays.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"
#include "store/postgres/pg_try.hpp"

namespace hookd::store::postgres {
namespace {

// Due, not leased (or lease expired), endpoint enabled, and for FIFO endpoints no open
// delivery with the same ordering key and a lower sequence. SKIP LOCKED: rows another node
// is claiming right now are left to it instead of waited for. The head's lease is the
// ordering key's lease: while it is open, the key's later rows stay unclaimable everywhere.
constexpr std::string_view kClaimSql = R"sql(
WITH due AS (
  SELECT d.id FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
  WHERE d.status IN ('pending', 'delivering') AND d.next_attempt_at <= $3
    AND (d.lease_until IS NULL OR d.lease_until <= $3)
    AND NOT e.disabled
    AND (NOT e.fifo OR d.ordering_key IS NULL OR NOT EXISTS (
      SELECT 1 FROM deliveries o
      WHERE o.endpoint_id = d.endpoint_id AND o.ordering_key = d.ordering_key
        AND o.status IN ('pending', 'delivering') AND o.sequence < d.sequence))
  ORDER BY d.next_attempt_at, d.id LIMIT $4
  FOR UPDATE OF d SKIP LOCKED)
UPDATE deliveries SET status = 'delivering', lease_owner = $1, lease_until = $2,
  next_attempt_at = $2, updated_at = $3
FROM due WHERE deliveries.id = due.id
RETURNING {})sql";

// The batch as arrays: one row per report.
constexpr std::string_view kRecordSql = R"sql(
UPDATE deliveries d SET status = r.status, attempts = d.attempts + 1,
  next_attempt_at = COALESCE(r.next_at, r.attempted_at), lease_owner = NULL,
  lease_until = NULL, first_attempt_at = COALESCE(d.first_attempt_at, r.attempted_at),
  last_attempt_at = r.attempted_at, last_error = r.error, last_response_status = r.code,
  updated_at = $8
FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[],
            $7::bigint[]) AS r(id, owner, status, next_at, attempted_at, error, code)
WHERE d.id = r.id AND d.lease_owner = r.owner AND d.status = 'delivering'
RETURNING {})sql";

constexpr std::string_view kInsertAttemptsSql = R"sql(
INSERT INTO attempts ({})
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[],
  $7::bigint[], $8::text[], $9::bytea[], $10::bigint[], $11::text[], $12::boolean[],
  $13::text[], $14::text[]))sql";

DeliveryStatus status_after(AttemptReport::Next next) {
  switch (next) {
    case AttemptReport::Next::kRetry:
      return DeliveryStatus::kPending;
    case AttemptReport::Next::kDelivered:
      return DeliveryStatus::kDelivered;
    case AttemptReport::Next::kDead:
      return DeliveryStatus::kDead;
  }
  return DeliveryStatus::kPending;
}

// One report's attempt row with the fields the store fills in.
Attempt attempt_of(const AttemptReport& report, Millis now) {
  Attempt a = report.attempt;
  if (a.attempted_at == 0) a.attempted_at = now;
  a.success = report.next == AttemptReport::Next::kDelivered;
  return a;
}

Status insert_attempts(PgConnection& c, const std::vector<Attempt>& attempts) {
  if (attempts.empty()) return {};
  std::vector<ArrayLiteral> cols(14);
  for (const Attempt& a : attempts) {
    cols[0].add(a.id);
    cols[1].add(a.delivery_id);
    cols[2].add(a.msg_id);
    cols[3].add(a.endpoint_id);
    cols[4].add(a.app_id);
    cols[5].add(a.attempted_at);
    cols[6].add(a.response_status);
    cols[7].add(encode_headers(a.response_headers));
    cols[8].add_bytes(a.response_body);
    cols[9].add(a.duration_ms);
    cols[10].add(a.error);
    cols[11].add(a.success);
    cols[12].add(to_string(a.trigger));
    cols[13].add(a.url);
  }
  Params p;
  for (const auto& col : cols) p.add(col.str());
  HOOKD_CHECK(c.query(fmt::format(kInsertAttemptsSql, kAttemptColumns), p));
  return {};
}

}  // namespace

// A claimed row's next_attempt_at becomes its lease expiry (when it is due again if its
// owner never reports), as on SQLite.
Result<std::vector<Delivery>> PgStore::claim_in_tx(PgConnection& c, const ClaimRequest& req,
                                                   Millis now) {
  HOOKD_TRY(rows, c.query(fmt::format(kClaimSql, qualify(kDeliveryColumns, "deliveries")),
                          Params().add_all(req.lease_owner, now + req.lease_ms, now,
                                           std::max(req.limit, 0))));
  auto out = collect<Delivery>(rows, read_delivery);
  // RETURNING has no defined order: oldest due first.
  std::sort(out.begin(), out.end(), [](const Delivery& a, const Delivery& b) {
    return std::tie(a.next_attempt_at, a.id) < std::tie(b.next_attempt_at, b.id);
  });
  return out;
}

Result<std::vector<Delivery>> PgStore::claim_due(const ClaimRequest& req) {
  // A lease lost in a database crash is harmless: the row is claimable again.
  return write([&](PgConnection& c) { return claim_in_tx(c, req, clock_.now_ms()); },
               /*durable=*/false);
}

Result<Delivery> PgStore::record_attempt(const AttemptReport& report) {
  auto batch = record_attempts({report});
  if (!batch) return std::unexpected(batch.error());
  return std::move(batch->front());
}

// The whole batch in two statements: one UPDATE ... FROM unnest(...) guarded by the lease
// (rows it does not return lost their lease: that item's kConflict), one INSERT of the
// attempts of the rows it did return.
Result<std::vector<Result<Delivery>>> PgStore::record_attempts(
    const std::vector<AttemptReport>& reports) {
  return write([&](PgConnection& c) { return record_attempts_in_tx(c, reports, clock_.now_ms()); });
}

Result<std::vector<Result<Delivery>>> PgStore::record_attempts_in_tx(
    PgConnection& c, const std::vector<AttemptReport>& reports, Millis now) {
  std::set<std::string> ids;
  for (const auto& r : reports) ids.insert(r.delivery_id);
  const bool unique_ids = ids.size() == reports.size();
  {
    std::vector<ArrayLiteral> cols(7);
    for (const auto& report : reports) {
      const Attempt a = attempt_of(report, now);
      const bool retry = report.next == AttemptReport::Next::kRetry;
      cols[0].add(report.delivery_id);
      cols[1].add(report.lease_owner);
      cols[2].add(to_string(status_after(report.next)));
      cols[3].add(retry ? std::optional<Millis>(report.next_attempt_at) : std::nullopt);
      cols[4].add(a.attempted_at);
      cols[5].add(last_error_of(a));
      cols[6].add(a.response_status);
    }
    Params p;
    for (const auto& col : cols) p.add(col.str());
    p.add(now);
    HOOKD_TRY(rows, c.query(fmt::format(kRecordSql, qualify(kDeliveryColumns, "d")), p));
    std::unordered_map<std::string, Delivery> updated;
    for (auto& d : collect<Delivery>(rows, read_delivery)) updated.emplace(d.id, std::move(d));

    std::vector<Result<Delivery>> out;
    std::vector<Attempt> attempts;
    for (const auto& report : reports) {
      auto found = updated.find(report.delivery_id);
      if (found == updated.end() || (!unique_ids && found->second.id.empty())) {
        out.push_back(
            fail(ErrorCode::kConflict, "lease on delivery " + report.delivery_id + " lost"));
        continue;
      }
      Attempt a = attempt_of(report, now);
      a.id = ids_.next(id_prefix::kAttempt);
      a.delivery_id = found->second.id;
      a.msg_id = found->second.msg_id;
      a.endpoint_id = found->second.endpoint_id;
      a.app_id = found->second.app_id;
      attempts.push_back(std::move(a));
      out.push_back(found->second);
      if (!unique_ids) found->second.id.clear();  // a repeated id: only its first report counts
    }
    HOOKD_CHECK(insert_attempts(c, attempts));
    return out;
  }
}

Result<int> PgStore::release_leases(const std::string& lease_owner) {
  return write([&](PgConnection& c) -> Result<int> {
    HOOKD_TRY(rows, c.query("UPDATE deliveries SET status = 'pending', lease_owner = NULL, "
                            "lease_until = NULL, next_attempt_at = $1, updated_at = $1 "
                            "WHERE lease_owner = $2 AND status = 'delivering'",
                            Params().add_all(clock_.now_ms(), lease_owner)));
    return static_cast<int>(rows.affected());
  });
}

Result<int> PgStore::defer_in_tx(PgConnection& c, const std::vector<Deferral>& items,
                                 const std::string& lease_owner, Millis now) {
  ArrayLiteral ids, due;
  for (const auto& item : items) {
    ids.add(item.delivery_id);
    due.add(item.next_attempt_at);
  }
  HOOKD_TRY(rows, c.query("UPDATE deliveries d SET status = 'pending', next_attempt_at = r.due, "
                          "lease_owner = NULL, lease_until = NULL, updated_at = $3 "
                          "FROM unnest($1::text[], $2::bigint[]) AS r(id, due) "
                          "WHERE d.id = r.id AND d.lease_owner = $4 AND d.status = 'delivering'",
                          Params().add_all(ids.str(), due.str(), now, lease_owner)));
  return static_cast<int>(rows.affected());
}

Result<int> PgStore::defer_deliveries(const std::vector<Deferral>& items,
                                      const std::string& lease_owner) {
  return write(
      [&](PgConnection& c) { return defer_in_tx(c, items, lease_owner, clock_.now_ms()); });
}

Result<Delivery> PgStore::get_delivery(const std::string& id) {
  return read([&](PgConnection& c) -> Result<Delivery> {
    HOOKD_TRY(rows,
              c.query(fmt::format("SELECT {} FROM deliveries WHERE id = $1", kDeliveryColumns),
                      Params().add(id)));
    return single<Delivery>(rows, read_delivery, "delivery");
  });
}

Result<std::vector<Delivery>> PgStore::list_deliveries_for_message(const std::string& msg_id) {
  return read([&](PgConnection& c) -> Result<std::vector<Delivery>> {
    HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM deliveries WHERE msg_id = $1 ORDER BY id",
                                        kDeliveryColumns),
                            Params().add(msg_id)));
    return collect<Delivery>(rows, read_delivery);
  });
}

Result<std::int64_t> PgStore::count_deliveries(DeliveryStatus status) {
  return read([&](PgConnection& c) -> Result<std::int64_t> {
    HOOKD_TRY(rows, c.query("SELECT COUNT(*) FROM deliveries WHERE status = $1",
                            Params().add(to_string(status))));
    return rows.int64(0, 0);
  });
}

}  // namespace hookd::store::postgres
