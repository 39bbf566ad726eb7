// PublishBatcher: group commit for POST .../msg — and the dispatcher's rounds
// (store::RoundSharingBatcher, which describes the mechanism). The API submit()s each
// publish through its api::PublishPort; the dispatcher hands its round to commit_round()
// through its outbound::RoundCommitter. Each commit is ONE store.write_batch transaction
// (publishes, then the round, whose claim already sees the deliveries just published); the
// on_committed hook (the App wakes the dispatcher with it) runs when a commit created
// deliveries. This keeps synchronous=FULL durability while the throughput grows with
// concurrency. The App starts it before the API and the dispatcher and stops it after them:
// stop() answers every queued publish (committing them), then stops the committer.
// Thread-safety: as store::RoundSharingBatcher.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "api/publish_port.hpp"
#include "outbound/ports.hpp"
#include "store/round_sharing_batcher.hpp"
#include "store/store.hpp"

namespace hookd::app {

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

class PublishBatcher final : public store::RoundSharingBatcher<PublishSpec>,
                             public api::PublishPort,
                             public outbound::RoundCommitter {
 public:
  static constexpr std::size_t kMaxBatch = 256;     // messages per group commit
  static constexpr std::size_t kMaxQueue = 10'000;  // queued publishes; beyond → 503

  explicit PublishBatcher(store::BatchWriter& store, std::size_t max_batch = kMaxBatch,
                          std::size_t max_queue = kMaxQueue, Committed on_committed = {})
      : RoundSharingBatcher(store, max_batch, max_queue, "hookd-publish") {
    this->on_committed(std::move(on_committed));
  }

  bool submit(store::NewMessage message, api::PublishPort::Done done) override {
    return RoundSharingBatcher::submit(std::move(message), std::move(done));
  }
  api::PublishPort::Stats stats() const override;

  Result<store::DispatchRoundResult> commit_round(store::DispatchRound round) override {
    return RoundSharingBatcher::commit_round(std::move(round));
  }
};

}  // namespace hookd::app
