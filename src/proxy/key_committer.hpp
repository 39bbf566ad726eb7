// KeyCommitter: the group committer of the idempotency gateway. Claims (before a request goes
// upstream) and outcomes (before its answer goes back) from every connection are queued and
// written by one thread, many per durable transaction (ProxyKeyStore::proxy_write_batch), so
// the two durable writes of a keyed call share their fsync with the other calls in flight.
//
// Thread-safety: claim()/record() from any thread; start()/stop() from the owner. The `done`
// callbacks run on the committer thread (keep them short: they send or answer, never wait).
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <optional>

#include "hookd/result.hpp"
#include "store/group_commit_queue.hpp"
#include "store/store.hpp"

namespace hookd::proxy {

class KeyCommitter {
 public:
  using ClaimDone = std::move_only_function<void(Result<store::ProxyClaimResult>)>;
  using OutcomeDone = std::move_only_function<void(Result<store::ProxyKey>)>;

  KeyCommitter(store::ProxyKeyStore& store, std::size_t max_batch, std::size_t max_queue);

  void start();
  // Commits what is queued, then joins the thread. Idempotent.
  void stop();

  // False when not running or the queue is full: `done` is then not called.
  bool claim(store::ProxyClaim claim, ClaimDone done);
  bool record(store::ProxyKeyOutcome outcome, OutcomeDone done);

 private:
  struct Item {
    std::optional<store::ProxyClaim> claim;
    ClaimDone claim_done;
    std::optional<store::ProxyKeyOutcome> outcome;
    OutcomeDone outcome_done;
  };
  void commit(std::deque<Item>& batch);

  store::ProxyKeyStore& store_;
  store::GroupCommitQueue<Item> queue_;
};

}  // namespace hookd::proxy
