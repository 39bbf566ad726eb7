#include "api/publish_batcher.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace hookd::api {

PublishBatcher::PublishBatcher(store::MessageStore& store, std::size_t max_batch,
                               std::size_t max_queue, Committed on_committed)
    : store_(store),
      max_batch_(std::max<std::size_t>(1, max_batch)),
      max_queue_(max_queue),
      on_committed_(std::move(on_committed)) {}

PublishBatcher::~PublishBatcher() { stop(); }

void PublishBatcher::start() {
  std::lock_guard lock(mu_);
  if (running_ || stopping_) return;
  running_ = true;
  committer_ = std::thread([this] { run(); });
}

void PublishBatcher::stop() {
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

bool PublishBatcher::submit(store::NewMessage message, Done done) {
  {
    std::lock_guard lock(mu_);
    if (!running_ || stopping_ || queue_.size() >= max_queue_) return false;
    queue_.push_back(Item{std::move(message), std::move(done)});
  }
  cv_.notify_one();
  return true;
}

PublishBatcher::Stats PublishBatcher::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void PublishBatcher::run() {
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

void PublishBatcher::commit(std::deque<Item>& batch) {
  std::vector<store::NewMessage> messages;
  messages.reserve(batch.size());
  for (auto& item : batch) messages.push_back(item.message);
  auto outcomes = store_.publish_batch(messages);
  {
    std::lock_guard lock(mu_);
    ++stats_.commits;
    stats_.messages += batch.size();
    stats_.largest = std::max<std::uint64_t>(stats_.largest, batch.size());
  }
  // Wake the consumer before answering: the deliveries are durable already.
  if (outcomes && on_committed_ &&
      std::ranges::any_of(*outcomes, [](const auto& o) { return o.deliveries_created > 0; })) {
    on_committed_();
  }
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (!outcomes) {
      batch[i].done(std::unexpected(outcomes.error()));
    } else if (i < outcomes->size()) {
      batch[i].done(std::move((*outcomes)[i]));
    } else {
      batch[i].done(fail(ErrorCode::kInternal, "publish_batch returned too few outcomes"));
    }
  }
}

}  // namespace hookd::api
