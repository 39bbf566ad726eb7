// PublishBatcher: group commit for POST .../msg. Request threads submit() a message with a
// completion callback; one committer thread takes everything queued (up to `max_batch`),
// commits it with ONE store.publish_batch transaction (one fsync for the lot), then calls
// each callback with its own outcome. A storage failure fails every item of that batch
// (the caller answers 503, never 202). This keeps synchronous=FULL durability while the
// throughput grows with concurrency.
// Thread-safety: submit() from any thread; start()/stop() from one owner thread. Callbacks
// run on the committer thread and must not block for long.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

#include "hookd/result.hpp"
#include "store/group_commit_queue.hpp"
#include "store/store.hpp"

namespace hookd::api {

class PublishBatcher {
 public:
  using Done = std::move_only_function<void(Result<store::PublishOutcome>)>;

  struct Stats {
    std::uint64_t commits = 0;   // publish_batch calls
    std::uint64_t messages = 0;  // items committed (or failed) through them
    std::uint64_t largest = 0;   // largest batch so far
  };

  // Called on the committer thread after a commit that created at least one delivery (e.g.
  // to wake the dispatcher); must not block.
  using Committed = std::function<void()>;

  PublishBatcher(store::MessageStore& store, std::size_t max_batch, std::size_t max_queue,
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

  Stats stats() const;

 private:
  struct Item {
    store::NewMessage message;
    Done done;
  };
  void commit(std::deque<Item>& batch);

  store::MessageStore& store_;
  Committed on_committed_;
  mutable std::mutex stats_mu_;
  Stats stats_;
  store::GroupCommitQueue<Item> queue_;  // last: its thread uses the members above
};

}  // namespace hookd::api
