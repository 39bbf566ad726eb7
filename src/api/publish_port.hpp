// PublishPort: where the API hands each publish (POST .../msg) to be group-committed. The
// composition root owns the committer (app::PublishBatcher, one store transaction for many
// publishes and the dispatcher's round) and hands it to the API as this port; it starts the
// port before the API and stops it after, answering every publish it accepted.
// Thread-safety: implementations must be safe to call from any thread.
#pragma once

#include <cstdint>
#include <functional>

#include "hookd/result.hpp"
#include "store/store.hpp"

namespace hookd::api {

class PublishPort {
 public:
  // Called once with the publish's outcome after its commit (or the commit's failure),
  // usually from the committer's thread.
  using Done = std::move_only_function<void(Result<store::PublishOutcome>)>;

  struct Stats {
    std::uint64_t commits = 0;  // store transactions
    std::uint64_t items = 0;    // publishes committed (or failed) through them
    std::uint64_t largest = 0;  // most publishes in one commit
    std::uint64_t rounds = 0;   // dispatcher rounds that shared them
  };

  virtual ~PublishPort() = default;
  // Queues one publish. Returns false (and drops `done` uncalled) when the port is not
  // running or its queue is full; the API answers 503 then.
  virtual bool submit(store::NewMessage message, Done done) = 0;
  virtual Stats stats() const = 0;  // for GET /api/v1/hookd/stats
};

}  // namespace hookd::api
