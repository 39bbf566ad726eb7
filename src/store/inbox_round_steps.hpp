// The backend-independent steps of the inbox's batch update and forwarder round, shared by
// the SQLite and PostgreSQL stores: each backend passes its own in-transaction statements
// (update one event, update a batch, claim) and runs the result inside its own transaction.
// Thread-safety: stateless functions; the callbacks run on the caller's connection.
#pragma once

#include <utility>
#include <vector>

#include "store/store.hpp"

namespace hookd::store {

// One result per update; a lost lease fails only its own item (kConflict), any other error
// fails the whole batch (the caller's transaction then rolls back, nothing is kept).
template <class UpdateOne>
Result<std::vector<Result<InboxEvent>>> update_each_inbox_event(
    const std::vector<InboxStatusUpdate>& updates, UpdateOne&& update_one) {
  std::vector<Result<InboxEvent>> out;
  out.reserve(updates.size());
  for (const auto& u : updates) {
    auto r = update_one(u);
    if (!r && r.error().code != ErrorCode::kConflict) return std::unexpected(r.error());
    out.push_back(std::move(r));
  }
  return out;
}

// The round: the finished updates first (they may free entities), then the claim.
template <class UpdateBatch, class Claim>
Result<InboxRoundResult> run_inbox_round(const InboxRound& round, UpdateBatch&& update_batch,
                                         Claim&& claim) {
  InboxRoundResult out;
  if (!round.updates.empty()) {
    auto updated = update_batch(round.updates);
    if (!updated) return std::unexpected(updated.error());
    out.updated = std::move(*updated);
  }
  if (round.claim_limit <= 0) return out;
  auto claimed =
      claim(InboxClaimRequest{round.lease_owner, round.lease_ms, round.claim_limit, round.source});
  if (!claimed) return std::unexpected(claimed.error());
  out.claimed = std::move(*claimed);
  return out;
}

}  // namespace hookd::store
