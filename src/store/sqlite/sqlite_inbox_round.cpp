// The forwarder's round trip on SQLite (status changes + the next claim in ONE write
// transaction, committed without its own fsync: see write_relaxed) and the operator's replay
// of a dead inbox event.
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/inbox_round_steps.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {

Result<InboxRoundResult> SqliteStore::inbox_round_in_tx(Connection& c, const InboxRound& round,
                                                        Millis now) {
  return run_inbox_round(
      round, [&](const auto& updates) { return inbox_update_batch_in_tx(c, updates, now); },
      [&](const InboxClaimRequest& claim) { return inbox_claim_in_tx(c, claim, now); });
}

Result<InboxRoundResult> SqliteStore::inbox_round(const InboxRound& round) {
  return write_relaxed([&](Connection& c) { return inbox_round_in_tx(c, round, clock_.now_ms()); });
}

Result<InboxEvent> SqliteStore::inbox_replay_dead(const std::string& id, const AuditEntry& audit) {
  return write([&](Connection& c) -> Result<InboxEvent> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(up, c.prepare(fmt::format(
                      "UPDATE inbox SET status = 'received', attempts = 0, next_attempt_at = ?1, "
                      "last_error = NULL, processed_at = NULL, lease_owner = NULL, "
                      "lease_until = NULL WHERE id = ?2 AND status = 'dead' RETURNING {}",
                      kInboxColumns)));
    up.bind_all(now, id);
    HOOKD_TRY(found, up.step());
    if (!found) {
      HOOKD_TRY(q, c.prepare("SELECT status FROM inbox WHERE id = ?"));
      HOOKD_TRY(exists, q.bind_all(id).step());
      if (!exists) return fail(ErrorCode::kNotFound, "inbox event " + id + " not found");
      return fail(ErrorCode::kConflict,
                  "inbox event " + id + " is " + q.text(0) + ", only dead events can be replayed");
    }
    InboxEvent ev = read_inbox(up);
    HOOKD_CHECK(up.run());
    HOOKD_TRY(hist, c.prepare("INSERT INTO inbox_history (inbox_id, at, from_status, to_status, "
                              "note) VALUES (?, ?, 'dead', 'received', ?)"));
    HOOKD_CHECK(hist.bind_all(id, now, "replayed: " + audit.reason).run());
    HOOKD_CHECK(append_audit_in_tx(c, audit, now));
    return ev;
  });
}

}  // namespace hookd::store::sqlite
