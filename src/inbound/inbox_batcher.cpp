#include "inbound/inbox_batcher.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace hookd::inbound {

InboxBatcher::InboxBatcher(store::InboxBatchWriter& store, std::size_t max_batch,
                           std::size_t max_queue)
    : store_(store),
      queue_(
          max_batch, max_queue, [this](auto& batch) { commit(batch); }, "hookd-inbox") {}

InboxBatcher::~InboxBatcher() { stop(); }

void InboxBatcher::start() { queue_.start(); }

void InboxBatcher::stop() { queue_.stop(); }

bool InboxBatcher::submit(store::InboxEvent event, Done done) {
  return queue_.submit(Insert{std::move(event), std::move(done)});
}

Result<store::InboxRoundResult> InboxBatcher::commit_round(store::InboxRound round) {
  std::promise<Result<store::InboxRoundResult>> done;
  auto result = done.get_future();
  // submit() moves the item only when it accepts it, so `round` is still ours otherwise.
  Item item{Round{std::move(round), &done}};
  if (!queue_.submit(std::move(item))) return round_alone(std::move(std::get<Round>(item).round));
  return result.get();
}

Result<store::InboxRoundResult> InboxBatcher::round_alone(store::InboxRound round) {
  store::InboxWriteBatch alone;
  alone.round = std::move(round);
  return *store_.inbox_write_batch(std::move(alone)).round;
}

InboxBatcher::Stats InboxBatcher::stats() const {
  std::lock_guard lock(stats_mu_);
  return stats_;
}

void InboxBatcher::count(std::size_t events, std::size_t rounds) {
  std::lock_guard lock(stats_mu_);
  ++stats_.commits;
  stats_.events += events;
  stats_.largest = std::max<std::uint64_t>(stats_.largest, events);
  stats_.rounds += rounds;
}

void InboxBatcher::commit(std::deque<Item>& batch) {
  store::InboxWriteBatch write;
  std::vector<Done> answers;
  std::vector<Round*> rounds;
  for (auto& item : batch) {
    if (auto* e = std::get_if<Insert>(&item)) {
      write.inserts.push_back(std::move(e->event));
      answers.push_back(std::move(e->done));
    } else {
      rounds.push_back(&std::get<Round>(item));
    }
  }
  // One forwarder per process: a second round in one batch is rare; it commits on its own.
  if (!rounds.empty()) write.round = std::move(rounds.front()->round);
  auto result = store_.inbox_write_batch(std::move(write));
  count(answers.size(), rounds.size());
  if (!rounds.empty()) rounds.front()->done->set_value(std::move(*result.round));
  for (std::size_t i = 1; i < rounds.size(); ++i) {
    rounds[i]->done->set_value(round_alone(std::move(rounds[i]->round)));
  }
  answer(answers, result.inserted);
}

void InboxBatcher::answer(std::vector<Done>& answers,
                          Result<std::vector<store::InboxInsertOutcome>>& outcomes) {
  // Wake the forwarder before answering: the new events are durable already.
  if (outcomes && on_committed_ &&
      std::ranges::any_of(*outcomes, [](const auto& o) { return o.inserted; })) {
    on_committed_();
  }
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (!outcomes) {
      answers[i](std::unexpected(outcomes.error()));
    } else if (i < outcomes->size()) {
      answers[i](std::move((*outcomes)[i]));
    } else {
      answers[i](fail(ErrorCode::kInternal, "inbox_write_batch returned too few outcomes"));
    }
  }
}

}  // namespace hookd::inbound
