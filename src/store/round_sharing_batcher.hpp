// RoundSharingBatcher: group commit for request items (publishes, inbound events) that a
// background worker's store round (the dispatcher's, the forwarder's) may join. Request
// threads submit() an item with a completion callback; the worker hands its round to
// commit_round() and waits. One committer thread (GroupCommitQueue) takes everything queued
// (up to `max_batch`) and makes ONE Spec::write call — one transaction, one fsync for the
// lot; the round's claim sees the items just stored — then answers the round, calls the
// `on_committed` hook when an item gave the worker something to do (before answering: it is
// durable already), and answers each item with its own outcome. A storage failure fails every
// item of that batch (the caller answers 503); nothing is answered before its commit.
// An optional `on_commit_status` hook sees each commit's outcome (readiness: app's
// StoreHealth).
//
// Spec provides: Value, Outcome, Round, RoundResult, Writer (the store port), and
//   static Written<Spec> write(Writer&, std::vector<Value>, std::optional<Round>);
//   static bool wakes(const Outcome&);   // true: the worker has new work
// Thread-safety: submit() and commit_round() from any thread; start()/stop() and
// on_committed() from one owner thread. Callbacks run on the committer thread and must not
// block for long.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <variant>
#include <vector>

#include "hookd/result.hpp"
#include "store/group_commit_queue.hpp"

namespace hookd::store {

// What Spec::write returns: the items' outcomes (one per item, in order) and the round's.
template <class Spec>
struct Written {
  Result<std::vector<typename Spec::Outcome>> items = std::vector<typename Spec::Outcome>{};
  std::optional<Result<typename Spec::RoundResult>> round;  // set iff a round was given
};

template <class Spec>
class RoundSharingBatcher {
 public:
  using Value = typename Spec::Value;
  using Outcome = typename Spec::Outcome;
  using Round = typename Spec::Round;
  using RoundResult = typename Spec::RoundResult;
  using Done = std::move_only_function<void(Result<Outcome>)>;
  using Committed = std::function<void()>;
  using CommitStatus = std::function<void(const Status&)>;

  struct Stats {
    std::uint64_t commits = 0;  // Spec::write calls
    std::uint64_t items = 0;    // items committed (or failed) through them
    std::uint64_t largest = 0;  // most items in one commit
    std::uint64_t rounds = 0;   // worker rounds committed through them
  };

  RoundSharingBatcher(typename Spec::Writer& store, std::size_t max_batch, std::size_t max_queue,
                      const char* thread_name)
      : store_(store),
        queue_(
            max_batch, max_queue, [this](auto& batch) { commit(batch); }, thread_name) {}
  ~RoundSharingBatcher() { stop(); }
  RoundSharingBatcher(const RoundSharingBatcher&) = delete;
  RoundSharingBatcher& operator=(const RoundSharingBatcher&) = delete;

  void start() { queue_.start(); }
  // Commits everything still queued, answers it, then joins the committer. Idempotent.
  void stop() { queue_.stop(); }

  // Called on the committer thread after a commit in which an item gave the worker new work,
  // before those items are answered (e.g. to wake the worker). Set before start().
  void on_committed(Committed callback) { on_committed_ = std::move(callback); }

  // Called on the committer thread with the outcome of each commit that carried items (ok,
  // or the error that failed them all) and of each failed round committed alone with the
  // batch: whether the store can commit. An empty round that succeeds is not reported (it may
  // have written nothing). Set before start().
  void on_commit_status(CommitStatus callback) { on_commit_status_ = std::move(callback); }

  // Queues one item. Returns false (and drops `done` uncalled) when not running or the queue
  // is full; the caller answers 503 then.
  bool submit(Value value, Done done) {
    return queue_.submit(Item{Entry{std::move(value), std::move(done)}});
  }

  // Commits `round` in the next batch and returns its result (blocks until committed). When
  // the batcher is not running or its queue is full, runs it on the store directly.
  Result<RoundResult> commit_round(Round round) {
    std::promise<Result<RoundResult>> done;
    auto result = done.get_future();
    // submit() moves the item only when it accepts it, so `round` is still ours otherwise.
    Item item{Pending{std::move(round), &done}};
    if (!queue_.submit(std::move(item))) {
      return round_alone(std::move(std::get<Pending>(item).round));
    }
    return result.get();
  }

  Stats stats() const {
    std::lock_guard lock(stats_mu_);
    return stats_;
  }
  std::size_t queued() const { return queue_.queued(); }  // waiting for the committer

 private:
  struct Entry {
    Value value;
    Done done;
  };
  struct Pending {
    Round round;
    std::promise<Result<RoundResult>>* done;  // the waiting caller's
  };
  using Item = std::variant<Entry, Pending>;

  // One round in a transaction of its own (not running, queue full, or a second round).
  Result<RoundResult> round_alone(Round round) {
    return *Spec::write(store_, {}, std::move(round)).round;
  }

  void count(std::size_t items, std::size_t rounds) {
    std::lock_guard lock(stats_mu_);
    ++stats_.commits;
    stats_.items += items;
    stats_.largest = std::max<std::uint64_t>(stats_.largest, items);
    stats_.rounds += rounds;
  }

  void commit(std::deque<Item>& batch) {
    std::vector<Value> values;
    std::vector<Done> answers;
    std::vector<Pending*> rounds;
    for (auto& item : batch) {
      if (auto* e = std::get_if<Entry>(&item)) {
        values.push_back(std::move(e->value));
        answers.push_back(std::move(e->done));
      } else {
        rounds.push_back(&std::get<Pending>(item));
      }
    }
    // One worker per process: a second round in one batch is rare; it commits on its own.
    std::optional<Round> round;
    if (!rounds.empty()) round = std::move(rounds.front()->round);
    auto written = Spec::write(store_, std::move(values), std::move(round));
    count(answers.size(), rounds.size());
    report(written, !answers.empty());
    if (!rounds.empty()) rounds.front()->done->set_value(std::move(*written.round));
    for (std::size_t i = 1; i < rounds.size(); ++i) {
      rounds[i]->done->set_value(round_alone(std::move(rounds[i]->round)));
    }
    answer(answers, written.items);
  }

  void report(const Written<Spec>& written, bool had_items) {
    if (!on_commit_status_) return;
    if (!written.items) return on_commit_status_(std::unexpected(written.items.error()));
    if (had_items) return on_commit_status_(Status{});
    if (written.round && !*written.round) {
      on_commit_status_(std::unexpected(written.round->error()));
    }
  }

  void answer(std::vector<Done>& answers, Result<std::vector<Outcome>>& outcomes) {
    if (answers.empty()) return;
    if (outcomes && on_committed_ && std::ranges::any_of(*outcomes, Spec::wakes)) {
      on_committed_();
    }
    for (std::size_t i = 0; i < answers.size(); ++i) {
      if (!outcomes) {
        answers[i](std::unexpected(outcomes.error()));
      } else if (i < outcomes->size()) {
        answers[i](std::move((*outcomes)[i]));
      } else {
        answers[i](fail(ErrorCode::kInternal, "the store returned too few outcomes"));
      }
    }
  }

  typename Spec::Writer& store_;
  Committed on_committed_;
  CommitStatus on_commit_status_;
  mutable std::mutex stats_mu_;
  Stats stats_;
  GroupCommitQueue<Item> queue_;  // last: its thread uses the members above
};

}  // namespace hookd::store
