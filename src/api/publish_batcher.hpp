// PublishBatcher: group commit for POST .../msg — and the dispatcher's rounds. Request threads
// submit() a message with a completion callback; the dispatcher hands its round to
// commit_round() and waits. One committer thread takes everything queued (up to
// `max_batch`), commits it with ONE store.write_batch transaction (one fsync for the lot: the
// publishes and the round share it, and the round's claim already sees the deliveries just
// published), then answers the round first and each publish with its own outcome. A storage
// failure fails every publish of that batch (the caller answers 503, never 202).
// This keeps synchronous=FULL durability while the throughput grows with concurrency.
// Thread-safety: submit() and commit_round() from any thread; start()/stop() from one owner
// thread. Callbacks run on the committer thread and must not block for long.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <variant>

#include "hookd/result.hpp"
#include "store/group_commit_queue.hpp"
#include "store/store.hpp"

namespace hookd::api {

class PublishBatcher {
 public:
  using Done = std::move_only_function<void(Result<store::PublishOutcome>)>;

  struct Stats {
    std::uint64_t commits = 0;   // write_batch calls
    std::uint64_t messages = 0;  // items committed (or failed) through them
    std::uint64_t largest = 0;   // largest batch so far
    std::uint64_t rounds = 0;    // dispatcher rounds committed through them
  };

  // Called on the committer thread after a commit that created at least one delivery (e.g.
  // to wake the dispatcher); must not block.
  using Committed = std::function<void()>;

  PublishBatcher(store::BatchWriter& store, std::size_t max_batch, std::size_t max_queue,
                 Committed on_committed = {});
  ~PublishBatcher();
  PublishBatcher(const PublishBatcher&) = delete;
  PublishBatcher& operator=(const PublishBatcher&) = delete;

  void start();
  // Commits everything still queued, answers it, then joins the committer. Idempotent.
  void stop();

  // Queues one message. Returns false (and drops `done` uncalled) when not running or the
  // queue is full; the caller answers 503 then.
  bool submit(store::NewMessage message, Done done);

  // Commits `round` in the next batch and returns its result (blocks until committed). When
  // the batcher is not running or its queue is full, runs it on the store directly.
  Result<store::DispatchRoundResult> commit_round(store::DispatchRound round);

  Stats stats() const;
  std::size_t queued() const { return queue_.queued(); }  // waiting for the committer

 private:
  struct Publish {
    store::NewMessage message;
    Done done;
  };
  struct Round {
    store::DispatchRound round;
    std::promise<Result<store::DispatchRoundResult>>* done;  // the waiting caller's
  };
  using Item = std::variant<Publish, Round>;
  void commit(std::deque<Item>& batch);
  // One round in a transaction of its own (not running, queue full, or a second round).
  Result<store::DispatchRoundResult> round_alone(store::DispatchRound round);
  void count(std::size_t publishes, std::size_t rounds);

  store::BatchWriter& store_;
  Committed on_committed_;
  mutable std::mutex stats_mu_;
  Stats stats_;
  store::GroupCommitQueue<Item> queue_;  // last: its thread uses the members above
};

}  // namespace hookd::api
