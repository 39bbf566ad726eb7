// InboxRounds: where the forwarder's store rounds go. Without one the forwarder calls
// store.inbox_round itself; in hookd serve on SQLite (one writer connection) the InboxBatcher
// takes them, so that a round shares its commit with the events the receiver queued meanwhile
// instead of taking turns with them for the writer.
// Thread-safety: implementations must be safe to call from any thread.
#pragma once

#include "hookd/result.hpp"
#include "store/store.hpp"

namespace hookd::inbound {

class InboxRounds {
 public:
  virtual ~InboxRounds() = default;
  // Blocks until the round is committed (or failed).
  virtual Result<store::InboxRoundResult> commit_round(store::InboxRound round) = 0;
};

}  // namespace hookd::inbound
