// The inbox's statements on PostgreSQL, each one statement for a whole batch (arrays passed
// as parameters and unnested), so that the forwarder's round (pg_inbox_round.cpp) is one
// pipeline and the receiver's group commit (pg_inbox.cpp) one statement: the ordered
// per-entity claim, the status changes of a batch with their history rows, entity states,
// audit entries and differences, the release of parked dependents, and the dedup insert of a batch.
// Thread-safety: pure functions over immutable SQL text (the id generator is thread-safe).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/id_generator.hpp"
#include "store/postgres/pg_connection.hpp"
#include "store/store.hpp"

namespace hookd::store::postgres {

// The claims of several nodes take turns: each claim transaction runs this first and holds
// the lock until it commits, so the claim's statement (its READ COMMITTED snapshot taken
// after the lock) sees every event another node has claimed. Without it two nodes could each
// claim an event of one entity at once (each seeing the other's still `received`). Held only
// for the server side of the round and the commit (the round is one pipeline); a round takes
// it first, so rounds of several nodes take turns as a whole (claims, and the release of
// parked events against events parked by another node: inbox_wake_if_settled_sql).
inline constexpr std::string_view kInboxClaimLock = "SELECT pg_advisory_xact_lock(7283019452)";

// Claim: $1 lease owner, $2 lease expiry, $3 now, $4 limit, $5 source (NULL: any). Run
// after kInboxClaimLock and kClaimPlanSettings (pg_delivery_sql.hpp) in the same
// transaction.
const std::string& inbox_claim_sql();
Params inbox_claim_params(const InboxClaimRequest& req, Millis now);
// Oldest due first (RETURNING has no defined order).
std::vector<InboxEvent> claimed_inbox_events(const Rows& rows);

// Status changes of DISTINCT events, one statement: the guarded UPDATE (an event whose lease
// `lease_owner` lost is left alone) and, for the rows it changed only, the history row, the
// entity state (the last update of an entity wins), the audit entry and the difference
// (InboxStatusUpdate.difference, recorded once). Returns the events as updated.
const std::string& inbox_update_sql();
Params inbox_update_params(const std::vector<InboxStatusUpdate>& updates, Millis now,
                           IdGenerator& ids);

// Parked events waiting for an event that this transaction settled (its processed_at is now)
// become due now: $1 now, $2 the ids of the updates moving to a settled status. Run after
// inbox_update_sql in the same transaction (it must see the statuses written there).
const std::string& inbox_release_dependents_sql();
// The release's parameters, or nothing when no update settles its event.
std::optional<Params> inbox_release_params(const std::vector<InboxStatusUpdate>& updates,
                                           Millis now);
// Events the updates park whose dependencies have all settled meanwhile become due now ($1
// now, $2 the ids parked); run after inbox_update_sql, under kInboxClaimLock. Nothing when
// no update parks.
const std::string& inbox_wake_if_settled_sql();
std::optional<Params> inbox_wake_if_settled_params(const std::vector<InboxStatusUpdate>& updates,
                                                   Millis now);

// One result per update of the batch: the event as updated, or kConflict when its lease was
// lost (or it was named before in the batch: `repeated`, see pg_batch.hpp).
std::vector<Result<InboxEvent>> updated_inbox_events(const Rows& rows,
                                                     const std::vector<InboxStatusUpdate>& updates,
                                                     const std::vector<bool>& repeated);

// Inserts a batch (ids and times assigned here) with ON CONFLICT (source, event_id) DO
// NOTHING and the `received` history rows of the new ones (note: the event's history_note);
// returns per event, in order, its new id (NULL for a duplicate) and the id of the row
// holding its (source, event_id) (NULL when the row was committed by another transaction
// after this statement started).
const std::string& inbox_insert_batch_sql();
Params inbox_insert_batch_params(std::vector<InboxEvent>& events, Millis now, IdGenerator& ids);

}  // namespace hookd::store::postgres
