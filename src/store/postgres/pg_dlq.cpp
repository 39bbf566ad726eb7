// The dead-letter queue on PostgreSQL: list, replay, discard (each audited in the same
// transaction), plus Svix resend and recover. Rows are locked (FOR UPDATE) before their
// state is checked, so two operators replaying at once cannot both succeed.
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/postgres/pg_query.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"

namespace hookd::store::postgres {
namespace {

Result<Delivery> lock_delivery(PgConnection& c, const std::string& id) {
  HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM deliveries WHERE id = $1 FOR UPDATE",
                                      kDeliveryColumns),
                          Params().add(id)));
  return single<Delivery>(rows, read_delivery, "delivery");
}

Status require_endpoint_of_app(PgConnection& c, const std::string& endpoint_id,
                               const std::string& app_id) {
  HOOKD_TRY(rows, c.query("SELECT 1 FROM endpoints WHERE id = $1 AND app_id = $2",
                          Params().add_all(endpoint_id, app_id)));
  if (rows.size() == 0) return fail(ErrorCode::kNotFound, "endpoint " + endpoint_id + " not found");
  return {};
}

}  // namespace

Result<Page<Delivery>> PgStore::list_dead(const DeadLetterFilter& filter, const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<Delivery>> {
    PgQuery q(fmt::format("SELECT {} FROM deliveries", kDeliveryColumns));
    filter_dead_letters(q, filter);
    q.page(page);
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<Delivery>(rows, read_delivery), page,
                     [](const Delivery& d) { return d.id; });
  });
}

Result<int> PgStore::replay_dead(const std::vector<std::string>& delivery_ids,
                                 std::optional<std::string> to_endpoint_id,
                                 const AuditEntry& audit) {
  return write([&](PgConnection& c) -> Result<int> {
    const Millis now = clock_.now_ms();
    for (const auto& id : delivery_ids) {
      HOOKD_TRY(before, lock_delivery(c, id));
      if (before.status != DeliveryStatus::kDead) {
        return fail(ErrorCode::kConflict, "delivery " + id + " is not dead");
      }
      if (to_endpoint_id) HOOKD_CHECK(require_endpoint_of_app(c, *to_endpoint_id, before.app_id));
      // Moved to another endpoint: new to its feed, so at its end (this transaction's id).
      HOOKD_TRY(rows, c.query(fmt::format("UPDATE deliveries SET status = 'pending', attempts = 0, "
                                          "next_attempt_at = $1, lease_owner = NULL, "
                                          "lease_until = NULL, endpoint_id = COALESCE($2, "
                                          "endpoint_id), updated_at = $1, feed_xid = CASE WHEN "
                                          "$2 IS NULL OR $2 = endpoint_id THEN feed_xid ELSE "
                                          "pg_current_xact_id() END WHERE id = $3 RETURNING {}",
                                          kDeliveryColumns),
                              Params().add_all(now, to_endpoint_id, id)));
      HOOKD_TRY(after, single<Delivery>(rows, read_delivery, "delivery"));
      HOOKD_CHECK(append_audit_in_tx(c, delivery_audit(audit, before, after), now));
    }
    return static_cast<int>(delivery_ids.size());
  });
}

Result<int> PgStore::discard_dead(const std::vector<std::string>& delivery_ids,
                                  const AuditEntry& audit) {
  return write([&](PgConnection& c) -> Result<int> {
    const Millis now = clock_.now_ms();
    for (const auto& id : delivery_ids) {
      HOOKD_TRY(before, lock_delivery(c, id));
      if (before.status != DeliveryStatus::kDead) {
        return fail(ErrorCode::kConflict, "delivery " + id + " is not dead");
      }
      HOOKD_CHECK(
          c.query("UPDATE deliveries SET status = 'discarded', updated_at = $1 "
                  "WHERE id = $2",
                  Params().add_all(now, id)));
      Delivery after = before;
      after.status = DeliveryStatus::kDiscarded;
      HOOKD_CHECK(append_audit_in_tx(c, delivery_audit(audit, before, after), now));
    }
    return static_cast<int>(delivery_ids.size());
  });
}

Result<Delivery> PgStore::resend(const std::string& msg_id, const std::string& endpoint_id,
                                 std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<Delivery> {
    HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM messages WHERE id = $1", kMessageColumns),
                            Params().add(msg_id)));
    HOOKD_TRY(msg, single<Message>(rows, read_message, "message"));
    if (payload_expunged(msg)) return fail(ErrorCode::kInvalidArgument, "the payload was expunged");
    HOOKD_CHECK(require_endpoint_of_app(c, endpoint_id, msg.app_id));
    const Millis now = clock_.now_ms();
    HOOKD_TRY(delivery, insert_delivery_in_tx(c, msg, endpoint_id, now));
    HOOKD_CHECK(c.query("UPDATE deliveries SET trigger = 'manual' WHERE id = $1",
                        Params().add(delivery.id)));  // its attempts: triggerType 1
    if (audit) {
      HOOKD_CHECK(
          append_audit_in_tx(c, completed_audit(*audit, msg.id, resend_state_json(delivery)), now));
    }
    return delivery;
  });
}

Result<int> PgStore::recover(const std::string& endpoint_id, Millis since,
                             std::optional<Millis> until, std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<int> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(rows, c.query("UPDATE deliveries SET status = 'pending', attempts = 0, "
                            "next_attempt_at = $1, lease_owner = NULL, lease_until = NULL, "
                            "updated_at = $1 WHERE endpoint_id = $2 AND status = 'dead' "
                            "AND created_at >= $3 AND ($4::bigint IS NULL OR created_at < $4)",
                            Params().add_all(now, endpoint_id, since, until)));
    const int recovered = static_cast<int>(rows.affected());
    if (audit) {
      HOOKD_CHECK(append_audit_in_tx(
          c, completed_audit(*audit, endpoint_id, recover_state_json(recovered)), now));
    }
    return recovered;
  });
}

// ---- attempts ----

Result<Page<Attempt>> PgStore::list_attempts(const AttemptFilter& filter, const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<Attempt>> {
    PgQuery q(fmt::format("SELECT {} FROM attempts", kAttemptColumns));
    filter_attempts(q, filter, kJsonMembership);
    q.page(page);
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<Attempt>(rows, read_attempt), page,
                     [](const Attempt& a) { return a.id; });
  });
}

}  // namespace hookd::store::postgres
