// InboxBatcher: group commit for inbound events — and the forwarder's rounds — as
// PublishBatcher does for publishes and the dispatcher. Request threads submit() a verified
// event with a completion callback; the forwarder hands its round to commit_round() and
// waits. One committer thread takes everything queued (up to `max_batch`) and stores it with
// ONE store.inbox_write_batch transaction (INSERT ... ON CONFLICT DO NOTHING per event, then
// the round, whose claim already sees those events; one fsync for the lot), then answers the
// round and each event with its own outcome (inserted or duplicate). A storage failure fails
// every event of that batch, so the caller answers 503 and the sender retries; nothing is
// answered 200 before its commit.
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
#include "inbound/inbox_rounds.hpp"
#include "store/group_commit_queue.hpp"
#include "store/store.hpp"

namespace hookd::inbound {

class InboxBatcher final : public InboxRounds {
 public:
  using Done = std::move_only_function<void(Result<store::InboxInsertOutcome>)>;

  struct Stats {
    std::uint64_t commits = 0;  // inbox_write_batch calls
    std::uint64_t events = 0;   // events committed (or failed) through them
    std::uint64_t largest = 0;  // most events in one commit
    std::uint64_t rounds = 0;   // forwarder rounds committed through them
  };

  InboxBatcher(store::InboxBatchWriter& store, std::size_t max_batch, std::size_t max_queue);
  ~InboxBatcher() override;
  InboxBatcher(const InboxBatcher&) = delete;
  InboxBatcher& operator=(const InboxBatcher&) = delete;

  void start();
  // Commits everything still queued, answers it, then joins the committer. Idempotent.
  void stop();

  // Queues one event. Returns false (and drops `done` uncalled) when not running or the
  // queue is full; the caller answers 503 then.
  bool submit(store::InboxEvent event, Done done);

  // Commits `round` in the next batch and returns its result (blocks until committed). When
  // the batcher is not running or its queue is full, runs it on the store directly.
  Result<store::InboxRoundResult> commit_round(store::InboxRound round) override;

  // Called after each successful commit that inserted at least one new event, before its
  // events are answered (e.g. to wake the forwarder). Set before start().
  void on_committed(std::function<void()> callback) { on_committed_ = std::move(callback); }

  Stats stats() const;
  std::size_t queued() const { return queue_.queued(); }  // waiting for the committer

 private:
  struct Insert {
    store::InboxEvent event;
    Done done;
  };
  struct Round {
    store::InboxRound round;
    std::promise<Result<store::InboxRoundResult>>* done;  // the waiting caller's
  };
  using Item = std::variant<Insert, Round>;
  void commit(std::deque<Item>& batch);
  // One round in a transaction of its own (not running, queue full, or a second round).
  Result<store::InboxRoundResult> round_alone(store::InboxRound round);
  void answer(std::vector<Done>& answers, Result<std::vector<store::InboxInsertOutcome>>& outcomes);
  void count(std::size_t events, std::size_t rounds);

  store::InboxBatchWriter& store_;
  std::function<void()> on_committed_;
  mutable std::mutex stats_mu_;
  Stats stats_;
  store::GroupCommitQueue<Item> queue_;  // last: its thread uses the members above
};

}  // namespace hookd::inbound
