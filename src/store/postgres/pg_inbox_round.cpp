// The forwarder's round trip on PostgreSQL (status changes + the next claim in ONE
// transaction, committed without waiting for the WAL flush) and the operator's replay of a
// dead inbox event.
#include <fmt/format.h>

#include "store/inbox_round_steps.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"
#include "store/postgres/pg_try.hpp"

namespace hookd::store::postgres {

Result<InboxRoundResult> PgStore::inbox_round(const InboxRound& round) {
  // Not durable (synchronous_commit off for this transaction), like the SQLite backend's
  // relaxed write: a round lost in a database crash only repeats work (the events are
  // forwarded again: at least once, deduplicated by the app's Idempotency-Key), and the WAL
  // being sequential, the next durable commit (an inbox insert) flushes it anyway.
  return write(
      [&](PgConnection& c) {
        const Millis now = clock_.now_ms();
        return run_inbox_round(
            round, [&](const auto& updates) { return inbox_update_batch_in_tx(c, updates, now); },
            [&](const InboxClaimRequest& claim) { return inbox_claim_in_tx(c, claim, now); });
      },
      /*durable=*/false);
}

Result<InboxEvent> PgStore::inbox_replay_dead(const std::string& id, const AuditEntry& audit) {
  return write([&](PgConnection& c) -> Result<InboxEvent> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(rows, c.query(fmt::format("UPDATE inbox SET status = 'received', attempts = 0, "
                                        "next_attempt_at = $1, last_error = NULL, "
                                        "processed_at = NULL, lease_owner = NULL, "
                                        "lease_until = NULL WHERE id = $2 AND status = 'dead' "
                                        "RETURNING {}",
                                        kInboxColumns),
                            Params().add_all(now, id)));
    if (rows.size() == 0) {
      HOOKD_TRY(found, c.query("SELECT status FROM inbox WHERE id = $1", Params().add(id)));
      if (found.size() == 0) return fail(ErrorCode::kNotFound, "inbox event " + id + " not found");
      return fail(ErrorCode::kConflict, "inbox event " + id + " is " + found.text(0, 0) +
                                            ", only dead events can be replayed");
    }
    InboxEvent ev = read_inbox(Row{rows, 0});
    HOOKD_CHECK(
        c.query("INSERT INTO inbox_history (inbox_id, at, from_status, to_status, note) "
                "VALUES ($1, $2, 'dead', 'received', $3)",
                Params().add_all(id, now, "replayed: " + audit.reason)));
    HOOKD_CHECK(append_audit_in_tx(c, audit, now));
    return ev;
  });
}

}  // namespace hookd::store::postgres
