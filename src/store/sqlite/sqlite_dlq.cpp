// The dead-letter queue on SQLite: list, replay, discard (each audited in the same
// transaction), plus Svix resend and recover.
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

Result<Delivery> load_delivery(Connection& c, const std::string& id) {
  HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM deliveries WHERE id = ?", kDeliveryColumns)));
  q.bind_all(id);
  return single<Delivery>(q, read_delivery, "delivery");
}

Status require_endpoint_of_app(Connection& c, const std::string& endpoint_id,
                               const std::string& app_id) {
  HOOKD_TRY(q, c.prepare("SELECT 1 FROM endpoints WHERE id = ? AND app_id = ?"));
  HOOKD_TRY(found, q.bind_all(endpoint_id, app_id).step());
  if (!found) return fail(ErrorCode::kNotFound, "endpoint " + endpoint_id + " not found");
  return {};
}

}  // namespace

Result<Page<Delivery>> SqliteStore::list_dead(const DeadLetterFilter& filter,
                                              const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<Delivery>> {
    Query q(fmt::format("SELECT {} FROM deliveries", kDeliveryColumns));
    filter_dead_letters(q, filter);
    q.page(page);
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<Delivery>(stmt, read_delivery));
    return make_page(std::move(rows), page, [](const Delivery& d) { return d.id; });
  });
}

Result<int> SqliteStore::replay_dead(const std::vector<std::string>& delivery_ids,
                                     std::optional<std::string> to_endpoint_id,
                                     const AuditEntry& audit) {
  return write([&](Connection& c) -> Result<int> {
    const Millis now = clock_.now_ms();
    for (const auto& id : delivery_ids) {
      HOOKD_TRY(before, load_delivery(c, id));
      if (before.status != DeliveryStatus::kDead) {
        return fail(ErrorCode::kConflict, "delivery " + id + " is not dead");
      }
      if (to_endpoint_id) HOOKD_CHECK(require_endpoint_of_app(c, *to_endpoint_id, before.app_id));
      HOOKD_TRY(
          up, c.prepare(fmt::format("UPDATE deliveries SET status = 'pending', attempts = 0, "
                                    "next_attempt_at = ?1, lease_owner = NULL, lease_until = NULL, "
                                    "endpoint_id = COALESCE(?2, endpoint_id), updated_at = ?1 "
                                    "WHERE id = ?3 RETURNING {}",
                                    kDeliveryColumns)));
      up.bind_all(now, to_endpoint_id, id);
      HOOKD_TRY(after, single<Delivery>(up, read_delivery, "delivery"));
      HOOKD_CHECK(up.run());
      if (after.endpoint_id != before.endpoint_id) {  // new to that endpoint's feed: at its end
        HOOKD_TRY(seq, take_feed_seqs(c, 1));
        HOOKD_TRY(move, c.prepare("UPDATE deliveries SET feed_seq = ? WHERE id = ?"));
        HOOKD_CHECK(move.bind_all(seq, id).run());
      }
      HOOKD_CHECK(append_audit_in_tx(c, delivery_audit(audit, before, after), now));
    }
    return static_cast<int>(delivery_ids.size());
  });
}

Result<int> SqliteStore::discard_dead(const std::vector<std::string>& delivery_ids,
                                      const AuditEntry& audit) {
  return write([&](Connection& c) -> Result<int> {
    const Millis now = clock_.now_ms();
    for (const auto& id : delivery_ids) {
      HOOKD_TRY(before, load_delivery(c, id));
      if (before.status != DeliveryStatus::kDead) {
        return fail(ErrorCode::kConflict, "delivery " + id + " is not dead");
      }
      HOOKD_TRY(
          up, c.prepare("UPDATE deliveries SET status = 'discarded', updated_at = ? WHERE id = ?"));
      HOOKD_CHECK(up.bind_all(now, id).run());
      Delivery after = before;
      after.status = DeliveryStatus::kDiscarded;
      HOOKD_CHECK(append_audit_in_tx(c, delivery_audit(audit, before, after), now));
    }
    return static_cast<int>(delivery_ids.size());
  });
}

Result<Delivery> SqliteStore::resend(const std::string& msg_id, const std::string& endpoint_id,
                                     std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<Delivery> {
    HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM messages WHERE id = ?", kMessageColumns)));
    q.bind_all(msg_id);
    HOOKD_TRY(msg, single<Message>(q, read_message, "message"));
    HOOKD_CHECK(q.run());
    if (payload_expunged(msg)) return fail(ErrorCode::kInvalidArgument, "the payload was expunged");
    HOOKD_CHECK(require_endpoint_of_app(c, endpoint_id, msg.app_id));
    const Millis now = clock_.now_ms();
    // Not in the feed: the message is there already, at its publish position.
    HOOKD_TRY(delivery, insert_delivery_in_tx(c, msg, endpoint_id, now, std::nullopt));
    HOOKD_TRY(manual, c.prepare("UPDATE deliveries SET trigger = 'manual' WHERE id = ?"));
    HOOKD_CHECK(manual.bind_all(delivery.id).run());  // its attempts: triggerType 1
    if (audit) {
      HOOKD_CHECK(
          append_audit_in_tx(c, completed_audit(*audit, msg.id, resend_state_json(delivery)), now));
    }
    return delivery;
  });
}

Result<int> SqliteStore::recover(const std::string& endpoint_id, Millis since,
                                 std::optional<Millis> until, std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<int> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(up, c.prepare("UPDATE deliveries SET status = 'pending', attempts = 0, "
                            "next_attempt_at = ?1, lease_owner = NULL, lease_until = NULL, "
                            "updated_at = ?1 WHERE endpoint_id = ?2 AND status = 'dead' "
                            "AND created_at >= ?3 AND (?4 IS NULL OR created_at < ?4)"));
    HOOKD_CHECK(up.bind_all(now, endpoint_id, since, until).run());
    const int recovered = static_cast<int>(c.changes());
    if (audit) {
      HOOKD_CHECK(append_audit_in_tx(
          c, completed_audit(*audit, endpoint_id, recover_state_json(recovered)), now));
    }
    return recovered;
  });
}

}  // namespace hookd::store::sqlite
