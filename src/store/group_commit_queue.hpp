// GroupCommitQueue: the committer thread behind group commit. Callers submit items from any
// thread; one thread takes up to `max_batch` queued items at a time and hands them to the
// commit function, so concurrent writers share one transaction (one fsync). Used by the
// API's publish batcher and the inbound receiver's inbox batcher.
//
// Thread-safety: submit() from any thread; start()/stop() from one owner thread. The commit
// function runs on the committer thread only, never concurrently with itself.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "hookd/threads.hpp"

namespace hookd::store {

template <typename Item>
class GroupCommitQueue {
 public:
  using Commit = std::function<void(std::deque<Item>& batch)>;

  // `thread_name` names the committer thread (see name_this_thread; 15 characters at most).
  GroupCommitQueue(std::size_t max_batch, std::size_t max_queue, Commit commit,
                   const char* thread_name = "hookd-commit")
      : max_batch_(std::max<std::size_t>(1, max_batch)),
        max_queue_(max_queue),
        commit_(std::move(commit)),
        thread_name_(thread_name) {}
  ~GroupCommitQueue() { stop(); }
  GroupCommitQueue(const GroupCommitQueue&) = delete;
  GroupCommitQueue& operator=(const GroupCommitQueue&) = delete;

  void start() {
    std::lock_guard lock(mu_);
    if (running_ || stopping_) return;
    running_ = true;
    committer_ = std::thread([this] { run(); });
  }

  // Commits everything still queued, then joins the committer. Idempotent.
  void stop() {
    {
      std::lock_guard lock(mu_);
      if (!running_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    if (committer_.joinable()) committer_.join();
    std::lock_guard lock(mu_);
    running_ = false;
  }

  // Items waiting for the committer (not counting the batch being committed).
  std::size_t queued() const {
    std::lock_guard lock(mu_);
    return queue_.size();
  }

  // False when not running or the queue is full; `item` is then left untouched (moved from
  // only when accepted).
  bool submit(Item&& item) {
    {
      std::lock_guard lock(mu_);
      if (!running_ || stopping_ || queue_.size() >= max_queue_) return false;
      queue_.push_back(std::move(item));
    }
    cv_.notify_one();
    return true;
  }

 private:
  void run() {
    name_this_thread(thread_name_);
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      std::deque<Item> batch;
      const auto n = std::min(queue_.size(), max_batch_);
      for (std::size_t i = 0; i < n; ++i) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      lock.unlock();
      commit_(batch);
      lock.lock();
    }
  }

  const std::size_t max_batch_;
  const std::size_t max_queue_;
  Commit commit_;
  const char* thread_name_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool running_ = false;
  bool stopping_ = false;
  std::thread committer_;
};

}  // namespace hookd::store
