#include "inbound/inbox_batcher.hpp"

#include <utility>
#include <vector>

namespace hookd::inbound {

InboxBatcher::InboxBatcher(store::InboxStore& store, std::size_t max_batch, std::size_t max_queue)
    : store_(store), queue_(max_batch, max_queue, [this](auto& batch) { commit(batch); }) {}

InboxBatcher::~InboxBatcher() { stop(); }

void InboxBatcher::start() { queue_.start(); }

void InboxBatcher::stop() { queue_.stop(); }

bool InboxBatcher::submit(store::InboxEvent event, Done done) {
  return queue_.submit(Item{std::move(event), std::move(done)});
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
