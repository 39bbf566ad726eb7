// The delivery queue's statements on PostgreSQL, shared by the one-call methods
// (pg_deliveries.cpp) and the dispatcher's pipelined round (pg_dispatch_round.cpp): the
// batch claim (FOR UPDATE SKIP LOCKED, FIFO head-of-line), the claim that also returns each
// delivery's message, and the record of a batch of attempts that writes the attempt rows in
// the same statement. Thread-safety: pure functions over immutable SQL text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "store/id_generator.hpp"
#include "store/postgres/pg_batch.hpp"
#include "store/postgres/pg_connection.hpp"
#include "store/store.hpp"

namespace hookd::store::postgres {

// The claim must walk deliveries_due in (next_attempt_at, id) order and stop after `limit`
// rows. A queue table's statistics are always stale (it was analyzed when it held few due
// rows), and with them the planner would rather fetch EVERY due row with a bitmap scan and
// sort them: O(backlog) per claim, 20 ms per round with a backlog of 9,000 (seen in the
// drain benchmark). These settings, local to the transaction and sent just before the claim
// (statements before it are planned with the defaults), rule that plan out.
inline constexpr std::string_view kClaimPlanSettings =
    "SELECT set_config('enable_sort', 'off', true), set_config('enable_bitmapscan', 'off', true)";

// Claim: $1 lease owner, $2 lease expiry, $3 now, $4 limit. Returns the deliveries.
const std::string& claim_sql();
// The same claim returning each delivery's columns followed by its message's (NULL when
// the message is gone): the dispatcher needs both, read in one statement.
const std::string& claim_with_messages_sql();
Params claim_params(const ClaimRequest& req, Millis now);
// Oldest due first (RETURNING has no defined order).
std::vector<Delivery> claimed_deliveries(const Rows& rows);
// claimed_with_messages_sql's rows: the deliveries, and each one's message or kNotFound.
void read_claimed_with_messages(const Rows& rows, std::vector<Delivery>& claimed,
                                std::vector<Result<Message>>& messages);

// Records a batch of reports naming DISTINCT deliveries: the guarded UPDATE (a row whose
// lease `lease_owner` lost is left alone) and the attempt rows of the rows it updated, one
// statement. Returns the updated deliveries.
const std::string& record_with_attempts_sql();
Params record_with_attempts_params(const std::vector<AttemptReport>& reports, Millis now,
                                   IdGenerator& ids);
// One result per report: the delivery as updated, or kConflict when its lease was lost.
std::vector<Result<Delivery>> recorded_deliveries(const Rows& rows,
                                                  const std::vector<AttemptReport>& reports);

// A delivery named twice in one batch: only its first report counts, the others are
// kConflict (the first one released the lease). `firsts` is what the statement records.
FirstMentions<AttemptReport> first_reports(const std::vector<AttemptReport>& reports);
// One result per report of the batch from the results of `firsts`.
std::vector<Result<Delivery>> with_repeats(std::vector<Result<Delivery>> recorded,
                                           const std::vector<AttemptReport>& reports,
                                           const std::vector<bool>& repeated);

// The attempt row a report writes, with the fields the store fills in (no ids yet).
Attempt attempt_of(const AttemptReport& report, Millis now);

}  // namespace hookd::store::postgres
