// The dispatcher's own port: RoundCommitter (where its store rounds go), so that tests and
// the composition root choose. Its other ports are shared with the rest of the daemon:
// net::HttpSender (net/http_sender.hpp) for attempts, hookd::Clock and hookd::Random
// (hookd/env.hpp) for time and jitter.
// Thread-safety: implementations must be safe to call from any thread.
#pragma once

#include "hookd/result.hpp"
#include "store/store.hpp"

namespace hookd::outbound {

// Where the dispatcher's store rounds go. StoreRounds sends them straight to the store; in
// hookd serve on SQLite they go through the publishes' group committer, so that a round
// shares its commit with the publishes queued meanwhile (app::PublishBatcher).
class RoundCommitter {
 public:
  virtual ~RoundCommitter() = default;
  // Blocks until the round is committed (or failed).
  virtual Result<store::DispatchRoundResult> commit_round(store::DispatchRound round) = 0;
};

class StoreRounds final : public RoundCommitter {
 public:
  explicit StoreRounds(store::Store& store) : store_(store) {}
  Result<store::DispatchRoundResult> commit_round(store::DispatchRound round) override {
    return store_.dispatch_round(round);
  }

 private:
  store::Store& store_;
};

}  // namespace hookd::outbound
