#include "inbound/inbox_batcher.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace hookd::inbound {

InboxBatcher::InboxBatcher(store::InboxStore& store, std::size_t max_batch, std::size_t max_queue)
    : store_(store), max_batch_(std::max<std::size_t>(1, max_batch)), max_queue_(max_queue) {}

InboxBatcher::~InboxBatcher() { stop(); }

void InboxBatcher::start() {
  std::lock_guard lock(mu_);
  if (running_ || stopping_) return;
  running_ = true;
  committer_ = std::thread([this] { run(); });
}

void InboxBatcher::stop() {
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

bool InboxBatcher::submit(store::InboxEvent event, Done done) {
  {
    std::lock_guard lock(mu_);
    if (!running_ || stopping_ || queue_.size() >= max_queue_) return false;
    queue_.push_back(Item{std::move(event), std::move(done)});
  }
  cv_.notify_one();
  return true;
}

void InboxBatcher::run() {
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
    commit(batch);
    lock.lock();
  }
}

void InboxBatcher::commit(std::deque<Item>& batch) {
  std::vector<store::InboxEvent> events;
  events.reserve(batch.size());
  for (auto& item : batch) events.push_back(std::move(item.event));
  auto outcomes = store_.inbox_insert_batch(std::move(events));
  bool any_new = false;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (!outcomes) {
      batch[i].done(std::unexpected(outcomes.error()));
    } else if (i < outcomes->size()) {
      any_new |= (*outcomes)[i].inserted;
      batch[i].done(std::move((*outcomes)[i]));
    } else {
      batch[i].done(fail(ErrorCode::kInternal, "inbox_insert_batch returned too few outcomes"));
    }
  }
  if (any_new && on_committed_) on_committed_();
}

}  // namespace hookd::inbound
