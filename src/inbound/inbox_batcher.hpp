// InboxBatcher: group commit for inbound events, as PublishBatcher does for publishes.
// Request threads submit() a verified event with a completion callback; one committer thread
// takes everything queued (up to `max_batch`), stores it with ONE store.inbox_insert_batch
// transaction (INSERT ... ON CONFLICT DO NOTHING per event, one fsync for the lot), then calls
// each callback with its own outcome (inserted or duplicate). A storage failure fails every
// item of that batch, so the caller answers 503 and the sender retries; nothing is answered
// 200 before its commit.
// Thread-safety: submit() from any thread; start()/stop() from one owner thread. Callbacks
// run on the committer thread and must not block for long.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>

#include "hookd/result.hpp"
#include "store/group_commit_queue.hpp"
#include "store/store.hpp"

namespace hookd::inbound {

class InboxBatcher {
 public:
  using Done = std::move_only_function<void(Result<store::InboxInsertOutcome>)>;

  InboxBatcher(store::InboxStore& store, std::size_t max_batch, std::size_t max_queue);
  ~InboxBatcher();
  InboxBatcher(const InboxBatcher&) = delete;
  InboxBatcher& operator=(const InboxBatcher&) = delete;

  void start();
  // Commits everything still queued, answers it, then joins the committer. Idempotent.
  void stop();

  // Queues one event. Returns false (and drops `done` uncalled) when not running or the
  // queue is full; the caller answers 503 then.
  bool submit(store::InboxEvent event, Done done);

  // Called after each successful commit that inserted at least one new event (e.g. to wake
  // the forwarder). Set before start().
  void on_committed(std::function<void()> callback) { on_committed_ = std::move(callback); }

 private:
  struct Item {
    store::InboxEvent event;
    Done done;
  };
  void commit(std::deque<Item>& batch);

  store::InboxStore& store_;
  std::function<void()> on_committed_;
  store::GroupCommitQueue<Item> queue_;  // last: its thread uses the members above
};

}  // namespace hookd::inbound
