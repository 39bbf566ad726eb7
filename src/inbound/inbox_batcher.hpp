// InboxBatcher: group commit for inbound events — and the forwarder's rounds
// (store::RoundSharingBatcher, which describes the mechanism), as PublishBatcher does for
// publishes and the dispatcher. Request threads submit() a verified event; the forwarder
// hands its round to commit_round() (the InboxRounds port). Each commit is ONE
// store.inbox_write_batch transaction (INSERT ... ON CONFLICT DO NOTHING per event, then the
// round, whose claim already sees those events; one fsync for the lot); each event is
// answered with its own outcome (inserted or duplicate), and the on_committed hook runs when
// a commit inserted something new. A storage failure fails every event of that batch, so the
// caller answers 503 and the sender retries; nothing is answered 200 before its commit.
// Thread-safety: as store::RoundSharingBatcher.
#pragma once

#include <optional>
#include <vector>

#include "inbound/inbox_rounds.hpp"
#include "store/round_sharing_batcher.hpp"
#include "store/store.hpp"

namespace hookd::inbound {

struct InboxSpec {
  using Value = store::InboxEvent;
  using Outcome = store::InboxInsertOutcome;
  using Round = store::InboxRound;
  using RoundResult = store::InboxRoundResult;
  using Writer = store::InboxBatchWriter;
  static store::Written<InboxSpec> write(Writer& store, std::vector<Value> events,
                                         std::optional<Round> round);
  static bool wakes(const Outcome& o) { return o.inserted; }
};

class InboxBatcher final : public store::RoundSharingBatcher<InboxSpec>, public InboxRounds {
 public:
  InboxBatcher(store::InboxBatchWriter& store, std::size_t max_batch, std::size_t max_queue)
      : RoundSharingBatcher(store, max_batch, max_queue, "hookd-inbox") {}

  Result<store::InboxRoundResult> commit_round(store::InboxRound round) override {
    return RoundSharingBatcher::commit_round(std::move(round));
  }
};

}  // namespace hookd::inbound
