#include "api/publish_batcher.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace hookd::api {

PublishBatcher::PublishBatcher(store::MessageStore& store, std::size_t max_batch,
                               std::size_t max_queue, Committed on_committed)
    : store_(store),
      on_committed_(std::move(on_committed)),
      queue_(max_batch, max_queue, [this](auto& batch) { commit(batch); }) {}

PublishBatcher::~PublishBatcher() { stop(); }

void PublishBatcher::start() { queue_.start(); }

void PublishBatcher::stop() { queue_.stop(); }

bool PublishBatcher::submit(store::NewMessage message, Done done) {
  return queue_.submit(Item{std::move(message), std::move(done)});
}

PublishBatcher::Stats PublishBatcher::stats() const {
  std::lock_guard lock(stats_mu_);
  return stats_;
}

void PublishBatcher::commit(std::deque<Item>& batch) {
  std::vector<store::NewMessage> messages;
  messages.reserve(batch.size());
  for (auto& item : batch) messages.push_back(std::move(item.message));
  auto outcomes = store_.publish_batch(messages);
  {
    std::lock_guard lock(stats_mu_);
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
