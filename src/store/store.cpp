// Default implementations of the Store's composite methods, in terms of its primitives, so
// that a backend works before it optimises them (SqliteStore overrides them).
#include "store/store.hpp"

namespace hookd::store {

IdempotencyBegin::Outcome idempotency_outcome(const IdempotencyRecord& record,
                                              const std::string& fingerprint) {
  using O = IdempotencyBegin::Outcome;
  if (record.fingerprint != fingerprint) return O::kMismatch;
  switch (record.state) {
    case IdempotencyState::kCompleted:
      return O::kReplay;
    case IdempotencyState::kInFlight:
      return O::kInFlight;
    case IdempotencyState::kUnknown:
      return O::kUnknown;
  }
  return O::kUnknown;
}

DeliveryStatus status_after(AttemptReport::Next next) {
  switch (next) {
    case AttemptReport::Next::kRetry:
      return DeliveryStatus::kPending;
    case AttemptReport::Next::kDelivered:
      return DeliveryStatus::kDelivered;
    case AttemptReport::Next::kDead:
      return DeliveryStatus::kDead;
  }
  return DeliveryStatus::kPending;
}

Result<int> DeliveryStore::expedite_endpoint(const std::string& /*endpoint_id*/) { return 0; }

Result<DispatchRoundResult> Store::dispatch_round(const DispatchRound& round) {
  DispatchRoundResult out;
  if (!round.reports.empty()) {
    auto recorded = record_attempts(round.reports);
    if (!recorded) return std::unexpected(recorded.error());
    out.recorded = std::move(*recorded);
  }
  if (!round.deferrals.empty()) {
    auto deferred = defer_deliveries(round.deferrals, round.lease_owner);
    if (!deferred) return std::unexpected(deferred.error());
    out.deferred = *deferred;
  }
  for (const auto& endpoint_id : round.expedite_endpoints) {
    auto expedited = expedite_endpoint(endpoint_id);
    if (!expedited) return std::unexpected(expedited.error());
    out.expedited += *expedited;
  }
  if (round.claim_limit > 0) {
    auto claimed = claim_due({round.lease_owner, round.lease_ms, round.claim_limit});
    if (!claimed) return std::unexpected(claimed.error());
    out.claimed = std::move(*claimed);
    for (const auto& d : out.claimed) out.messages.push_back(get_message(d.app_id, d.msg_id));
  }
  return out;
}

WriteBatchResult Store::write_batch(const WriteBatch& batch) {
  WriteBatchResult out;
  if (!batch.publishes.empty()) out.published = publish_batch(batch.publishes);
  if (batch.round) out.round = dispatch_round(*batch.round);
  return out;
}

InboxWriteBatchResult Store::inbox_write_batch(InboxWriteBatch batch) {
  InboxWriteBatchResult out;
  if (!batch.inserts.empty()) out.inserted = inbox_insert_batch(std::move(batch.inserts));
  if (batch.round) out.round = inbox_round(*batch.round);
  return out;
}

}  // namespace hookd::store
