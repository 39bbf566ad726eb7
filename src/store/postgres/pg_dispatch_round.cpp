// The dispatcher's round trip on PostgreSQL: record attempts (with their attempt rows),
// defer, expedite recovered endpoints and claim new work with its messages, all in ONE
// transaction (one commit however much it carries), each step a single set-based
// statement — and all of it sent at once in libpq pipeline mode (pg_pipeline.hpp), so the
// round costs one network round trip and one WAL flush instead of one round trip per
// statement. READ COMMITTED still gives each statement its own snapshot, so the claim sees
// what the round recorded just before it (a FIFO successor is claimable in the same round).
#include "hookd/result.hpp"
#include "store/postgres/pg_arrays.hpp"
#include "store/postgres/pg_delivery_sql.hpp"
#include "store/postgres/pg_pipeline.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"

namespace hookd::store::postgres {
namespace {

constexpr std::string_view kExpediteSql =
    "UPDATE deliveries SET next_attempt_at = $1, updated_at = $1 "
    "WHERE endpoint_id = $2 AND status = 'pending' AND next_attempt_at > $1";

// The lease guard is written `(...) IS TRUE` so that no index can serve it: only the
// primary key drives the join (a plan driven by deliveries_by_lease compared every row this
// node holds with every item: 100 ms for 543 items, seen in the drain benchmark).
constexpr std::string_view kDeferSql =
    "UPDATE deliveries d SET status = 'pending', next_attempt_at = r.due, "
    "lease_owner = NULL, lease_until = NULL, updated_at = $3 "
    "FROM unnest($1::text[], $2::bigint[]) AS r(id, due) "
    "WHERE d.id = r.id AND (d.lease_owner = $4 AND d.status = 'delivering') IS TRUE";

Params defer_params(const std::vector<Deferral>& items, const std::string& lease_owner,
                    Millis now) {
  ArrayLiteral ids, due;
  for (const auto& item : items) {
    ids.add(item.delivery_id);
    due.add(item.next_attempt_at);
  }
  return Params().add_all(ids.str(), due.str(), now, lease_owner);
}

}  // namespace

Result<int> PgStore::expedite_in_tx(PgConnection& c, const std::string& endpoint_id, Millis now) {
  HOOKD_TRY(rows, c.query(kExpediteSql, Params().add_all(now, endpoint_id)));
  return static_cast<int>(rows.affected());
}

Result<int> PgStore::defer_in_tx(PgConnection& c, const std::vector<Deferral>& items,
                                 const std::string& lease_owner, Millis now) {
  HOOKD_TRY(rows, c.query(kDeferSql, defer_params(items, lease_owner, now)));
  return static_cast<int>(rows.affected());
}

Result<int> PgStore::expedite_endpoint(const std::string& endpoint_id) {
  return write([&](PgConnection& c) { return expedite_in_tx(c, endpoint_id, clock_.now_ms()); });
}

// Deadlocks and serialization failures rerun the round, as write() does.
Result<DispatchRoundResult> PgStore::dispatch_round(const DispatchRound& round) {
  for (int attempt = 0;; ++attempt) {
    auto lease = pool_.acquire();
    if (!lease) return std::unexpected(lease.error());
    PgConnection& c = lease->conn();
    auto r = pipelined_round(c, round, clock_.now_ms());
    if (r || attempt >= 4 || !c.retryable_failure()) return r;
  }
}

Result<DispatchRoundResult> PgStore::pipelined_round(PgConnection& c, const DispatchRound& round,
                                                     Millis now) {
  const bool durable =
      !round.reports.empty() || !round.deferrals.empty() || !round.expedite_endpoints.empty();
  auto [firsts, repeated] = first_reports(round.reports);
  PgPipeline p(c);
  p.add_simple("BEGIN");
  if (!durable) p.add_simple(std::string(kNotDurable));  // only claims: see claim_due
  std::optional<std::size_t> record_at, defer_at, claim_at;
  std::vector<std::size_t> expedite_at;
  if (!firsts.empty()) {
    record_at = p.add(record_with_attempts_sql(), record_with_attempts_params(firsts, now, ids_));
  }
  if (!round.deferrals.empty()) {
    defer_at = p.add(std::string(kDeferSql), defer_params(round.deferrals, round.lease_owner, now));
  }
  for (const auto& endpoint_id : round.expedite_endpoints) {
    expedite_at.push_back(p.add(std::string(kExpediteSql), Params().add_all(now, endpoint_id)));
  }
  if (round.claim_limit > 0) {
    p.add_simple(std::string(kClaimPlanSettings));
    claim_at = p.add(claim_with_messages_sql(),
                     claim_params({round.lease_owner, round.lease_ms, round.claim_limit}, now));
  }
  p.add_simple("COMMIT");
  HOOKD_TRY(results, p.run());

  DispatchRoundResult out;
  if (!round.reports.empty()) {
    std::vector<Result<Delivery>> recorded;
    if (record_at) recorded = recorded_deliveries(results[*record_at], firsts);
    out.recorded = with_repeats(std::move(recorded), round.reports, repeated);
  }
  if (defer_at) out.deferred = static_cast<int>(results[*defer_at].affected());
  for (std::size_t at : expedite_at) out.expedited += static_cast<int>(results[at].affected());
  if (claim_at) read_claimed_with_messages(results[*claim_at], out.claimed, out.messages);
  return out;
}

}  // namespace hookd::store::postgres
