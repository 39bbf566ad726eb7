// The delivery queue on PostgreSQL: batch claims with FOR UPDATE SKIP LOCKED and leases
// (FIFO head-of-line per endpoint and ordering key, across nodes), attempts recorded with
// the delivery's next state in one transaction — a whole batch in one statement (the SQL is
// in pg_delivery_sql.cpp).
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/postgres/pg_delivery_sql.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"

namespace hookd::store::postgres {

// A claimed row's next_attempt_at becomes its lease expiry (when it is due again if its
// owner never reports), as on SQLite.
Result<std::vector<Delivery>> PgStore::claim_in_tx(PgConnection& c, const ClaimRequest& req,
                                                   Millis now) {
  HOOKD_CHECK(c.exec(kClaimPlanSettings));
  HOOKD_TRY(rows, c.query(claim_sql(), claim_params(req, now)));
  return claimed_deliveries(rows);
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

// The whole batch in one statement (pg_delivery_sql.hpp): the UPDATE guarded by the lease
// (rows it does not return lost their lease: that item's kConflict) and the attempt rows of
// the rows it did return.
Result<std::vector<Result<Delivery>>> PgStore::record_attempts(
    const std::vector<AttemptReport>& reports) {
  return write([&](PgConnection& c) { return record_attempts_in_tx(c, reports, clock_.now_ms()); });
}

Result<std::vector<Result<Delivery>>> PgStore::record_attempts_in_tx(
    PgConnection& c, const std::vector<AttemptReport>& reports, Millis now) {
  auto [firsts, repeated] = first_reports(reports);
  HOOKD_TRY(rows,
            c.query(record_with_attempts_sql(), record_with_attempts_params(firsts, now, ids_)));
  return with_repeats(recorded_deliveries(rows, firsts), reports, repeated);
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

Result<std::optional<Millis>> PgStore::oldest_waiting_delivery() {
  return read([&](PgConnection& c) -> Result<std::optional<Millis>> {
    HOOKD_TRY(rows, c.query("SELECT MIN(created_at) FROM deliveries WHERE status IN "
                            "('pending', 'delivering')",
                            Params()));
    return rows.opt_int64(0, 0);
  });
}

Result<std::optional<Millis>> PgStore::inbox_oldest_waiting() {
  return read([&](PgConnection& c) -> Result<std::optional<Millis>> {
    HOOKD_TRY(rows, c.query("SELECT MIN(received_at) FROM inbox WHERE status IN "
                            "('received', 'processing', 'retry', 'parked')",
                            Params()));
    return rows.opt_int64(0, 0);
  });
}

}  // namespace hookd::store::postgres
