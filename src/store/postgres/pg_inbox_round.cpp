// The forwarder's round trip on PostgreSQL: the status changes it finished (with their
// history rows, entity states and audit entries), the release of the parked events they
// settled, and the next claim — ONE transaction, each step a single set-based statement, all
// of it sent at once in libpq pipeline mode (pg_pipeline.hpp): one network round trip per
// round however many events it carries, as the dispatcher's round (pg_dispatch_round.cpp).
// READ COMMITTED gives each statement its own snapshot, so the release sees the statuses
// just written and the claim sees what they unblocked (an entity's next event is claimable
// in the same round). The single-call status changes and claim run the same statements.
// Also the operator's replay of a dead inbox event.
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/postgres/pg_batch.hpp"
#include "store/postgres/pg_delivery_sql.hpp"
#include "store/postgres/pg_inbox_sql.hpp"
#include "store/postgres/pg_pipeline.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"

namespace hookd::store::postgres {

Result<InboxRoundResult> PgStore::pipelined_inbox_round(
    PgConnection& c, const std::vector<InboxStatusUpdate>& updates,
    const std::optional<InboxClaimRequest>& claim, Millis now, bool durable) {
  InboxRoundResult out;
  const bool claims = claim && claim->limit > 0;
  if (updates.empty() && !claims) return out;
  auto [firsts, repeated] =
      first_mentions(updates, [](const InboxStatusUpdate& u) -> std::string_view { return u.id; });
  PgPipeline p(c);
  p.add_simple("BEGIN");
  if (!durable) p.add_simple(std::string(kNotDurable));
  // One node's round at a time, from here to COMMIT: each claim sees the others' claims, and
  // a dependency settled by one round and an event parked by another cannot miss each other.
  p.add_simple(std::string(kInboxClaimLock));
  std::optional<std::size_t> update_at, claim_at;
  if (!firsts.empty()) {
    update_at = p.add(inbox_update_sql(), inbox_update_params(firsts, now, ids_));
    if (auto release = inbox_release_params(firsts, now)) {
      p.add(inbox_release_dependents_sql(), std::move(*release));
    }
    if (auto wake = inbox_wake_if_settled_params(firsts, now)) {
      p.add(inbox_wake_if_settled_sql(), std::move(*wake));
    }
  }
  if (claims) {
    p.add_simple(std::string(kClaimPlanSettings));  // walk the due order, stop at the limit
    claim_at = p.add(inbox_claim_sql(), inbox_claim_params(*claim, now));
  }
  p.add_simple("COMMIT");
  HOOKD_TRY(results, p.run());
  if (update_at) out.updated = updated_inbox_events(results[*update_at], updates, repeated);
  if (claim_at) out.claimed = claimed_inbox_events(results[*claim_at]);
  return out;
}

// Not durable (synchronous_commit off for this transaction), like the SQLite backend's
// relaxed write: a round lost in a database crash only repeats work (the events are
// forwarded again: at least once, deduplicated by the app's Idempotency-Key), and the WAL
// being sequential, the next durable commit (an inbox insert) flushes it anyway.
Result<InboxRoundResult> PgStore::inbox_round(const InboxRound& round) {
  std::optional<InboxClaimRequest> claim;
  if (round.claim_limit > 0) {
    claim = InboxClaimRequest{round.lease_owner, round.lease_ms, round.claim_limit, round.source};
  }
  return alone([&](PgConnection& c) {
    return pipelined_inbox_round(c, round.updates, claim, clock_.now_ms(), /*durable=*/false);
  });
}

Result<std::vector<InboxEvent>> PgStore::inbox_claim(const InboxClaimRequest& req) {
  // A lease lost in a database crash: the row is simply claimable again.
  HOOKD_TRY(r, alone([&](PgConnection& c) {
              return pipelined_inbox_round(c, {}, req, clock_.now_ms(), /*durable=*/false);
            }));
  return std::move(r.claimed);
}

Result<std::vector<Result<InboxEvent>>> PgStore::inbox_update_status_batch(
    const std::vector<InboxStatusUpdate>& updates) {
  HOOKD_TRY(r, alone([&](PgConnection& c) {
              return pipelined_inbox_round(c, updates, std::nullopt, clock_.now_ms(),
                                           /*durable=*/true);
            }));
  return std::move(r.updated);
}

Result<InboxEvent> PgStore::inbox_update_status(const InboxStatusUpdate& u) {
  HOOKD_TRY(updated, inbox_update_status_batch({u}));
  if (updated.size() != 1) return fail(ErrorCode::kInternal, "inbox update returned no result");
  return std::move(updated[0]);
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
