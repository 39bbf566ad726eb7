// PublishBatcher: group commit for POST .../msg — and the dispatcher's rounds
// (store::RoundSharingBatcher, which describes the mechanism). Request threads submit() a
// message; the dispatcher hands its round to commit_round(). Each commit is ONE
// store.write_batch transaction (publishes, then the round, whose claim already sees the
// deliveries just published); the on_committed hook runs when a commit created deliveries.
// This keeps synchronous=FULL durability while the throughput grows with concurrency.
// Thread-safety: as store::RoundSharingBatcher.
#pragma once

#include <optional>
#include <vector>

#include "store/round_sharing_batcher.hpp"
#include "store/store.hpp"

namespace hookd::api {

struct PublishSpec {
  using Value = store::NewMessage;
  using Outcome = store::PublishOutcome;
  using Round = store::DispatchRound;
  using RoundResult = store::DispatchRoundResult;
  using Writer = store::BatchWriter;
  static store::Written<PublishSpec> write(Writer& store, std::vector<Value> publishes,
                                           std::optional<Round> round);
  static bool wakes(const Outcome& o) { return o.deliveries_created > 0; }
};

class PublishBatcher final : public store::RoundSharingBatcher<PublishSpec> {
 public:
  PublishBatcher(store::BatchWriter& store, std::size_t max_batch, std::size_t max_queue,
                 Committed on_committed = {})
      : RoundSharingBatcher(store, max_batch, max_queue, "hookd-publish") {
    this->on_committed(std::move(on_committed));
  }
};

}  // namespace hookd::api
