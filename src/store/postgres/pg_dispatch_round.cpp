// The dispatcher's round trip on PostgreSQL: record attempts, defer, expedite recovered
// endpoints and claim new work with its messages, all in ONE transaction (one durable
// commit however much it carries), each step a single set-based statement.
#include <fmt/format.h>

#include <unordered_map>

#include "store/postgres/pg_arrays.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"
#include "store/postgres/pg_try.hpp"

namespace hookd::store::postgres {

Result<int> PgStore::expedite_in_tx(PgConnection& c, const std::string& endpoint_id, Millis now) {
  HOOKD_TRY(rows, c.query("UPDATE deliveries SET next_attempt_at = $1, updated_at = $1 "
                          "WHERE endpoint_id = $2 AND status = 'pending' AND next_attempt_at > $1",
                          Params().add_all(now, endpoint_id)));
  return static_cast<int>(rows.affected());
}

Result<int> PgStore::expedite_endpoint(const std::string& endpoint_id) {
  return write([&](PgConnection& c) { return expedite_in_tx(c, endpoint_id, clock_.now_ms()); });
}

Result<DispatchRoundResult> PgStore::dispatch_round(const DispatchRound& round) {
  // A round that only claims need not wait for the WAL flush (see claim_due).
  const bool durable =
      !round.reports.empty() || !round.deferrals.empty() || !round.expedite_endpoints.empty();
  return write(
      [&](PgConnection& c) -> Result<DispatchRoundResult> {
        const Millis now = clock_.now_ms();
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
        HOOKD_TRY(claimed,
                  claim_in_tx(c, {round.lease_owner, round.lease_ms, round.claim_limit}, now));
        out.claimed = std::move(claimed);
        if (out.claimed.empty()) return out;
        ArrayLiteral ids;
        for (const auto& d : out.claimed) ids.add(d.msg_id);
        HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM messages WHERE id = ANY($1::text[])",
                                            kMessageColumns),
                                Params().add(ids.str())));
        std::unordered_map<std::string, Message> by_id;
        for (auto& m : collect<Message>(rows, read_message)) by_id.emplace(m.id, std::move(m));
        out.messages.reserve(out.claimed.size());
        for (const auto& d : out.claimed) {
          auto found = by_id.find(d.msg_id);
          if (found == by_id.end()) {
            out.messages.push_back(fail(ErrorCode::kNotFound, "message not found"));
          } else {
            out.messages.push_back(found->second);
          }
        }
        return out;
      },
      durable);
}

}  // namespace hookd::store::postgres
