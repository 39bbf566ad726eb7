// The dispatcher's round trip on SQLite: record attempts, defer, expedite recovered
// endpoints and claim new work with its messages, all in ONE write transaction, so a round
// costs one commit (one fsync with synchronous=FULL) however much it carries.
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {

Result<int> SqliteStore::expedite_in_tx(Connection& c, const std::string& endpoint_id, Millis now) {
  HOOKD_TRY(up, c.prepare("UPDATE deliveries SET next_attempt_at = ?1, updated_at = ?1 "
                          "WHERE endpoint_id = ?2 AND status = 'pending' "
                          "AND next_attempt_at > ?1"));
  HOOKD_CHECK(up.bind_all(now, endpoint_id).run());
  return static_cast<int>(c.changes());
}

Result<int> SqliteStore::expedite_endpoint(const std::string& endpoint_id) {
  return write([&](Connection& c) { return expedite_in_tx(c, endpoint_id, clock_.now_ms()); });
}

Result<DispatchRoundResult> SqliteStore::dispatch_round_in_tx(Connection& c,
                                                              const DispatchRound& round,
                                                              Millis now) {
  DispatchRoundResult out;
  if (!round.reports.empty()) {
    HOOKD_TRY(recorded, record_attempts_in_tx(c, round.reports, now));
    out.recorded = std::move(recorded);
  }
  if (!round.deferrals.empty()) {
    HOOKD_TRY(deferred, defer_in_tx(c, round.deferrals, round.lease_owner, now));
    out.deferred = deferred;
  }
  for (const auto& endpoint_id : round.expedite_endpoints) {
    HOOKD_TRY(expedited, expedite_in_tx(c, endpoint_id, now));
    out.expedited += expedited;
  }
  if (round.claim_limit <= 0) return out;
  HOOKD_TRY(claimed, claim_in_tx(c, {round.lease_owner, round.lease_ms, round.claim_limit}, now));
  out.claimed = std::move(claimed);
  out.messages.reserve(out.claimed.size());
  for (const auto& d : out.claimed) {
    HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM messages WHERE id = ?", kMessageColumns)));
    q.bind_all(d.msg_id);
    auto message = single<Message>(q, read_message, "message");
    if (!message && message.error().code != ErrorCode::kNotFound) {
      return std::unexpected(message.error());
    }
    out.messages.push_back(std::move(message));
  }
  return out;
}

Result<DispatchRoundResult> SqliteStore::dispatch_round(const DispatchRound& round) {
  return write([&](Connection& c) { return dispatch_round_in_tx(c, round, clock_.now_ms()); });
}

}  // namespace hookd::store::sqlite
