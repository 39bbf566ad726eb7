#include "api/publish_batcher.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace hookd::api {

PublishBatcher::PublishBatcher(store::BatchWriter& store, std::size_t max_batch,
                               std::size_t max_queue, Committed on_committed)
    : store_(store),
      on_committed_(std::move(on_committed)),
      queue_(
          max_batch, max_queue, [this](auto& batch) { commit(batch); }, "hookd-publish") {}

PublishBatcher::~PublishBatcher() { stop(); }

void PublishBatcher::start() { queue_.start(); }

void PublishBatcher::stop() { queue_.stop(); }

bool PublishBatcher::submit(store::NewMessage message, Done done) {
  return queue_.submit(Publish{std::move(message), std::move(done)});
}

Result<store::DispatchRoundResult> PublishBatcher::commit_round(store::DispatchRound round) {
  std::promise<Result<store::DispatchRoundResult>> done;
  auto result = done.get_future();
  // submit() moves the item only when it accepts it, so `round` is still ours otherwise.
  Item item{Round{std::move(round), &done}};
  if (!queue_.submit(std::move(item))) return round_alone(std::move(std::get<Round>(item).round));
  return result.get();
}

Result<store::DispatchRoundResult> PublishBatcher::round_alone(store::DispatchRound round) {
  store::WriteBatch alone;
  alone.round = std::move(round);
  return *store_.write_batch(alone).round;
}

PublishBatcher::Stats PublishBatcher::stats() const {
  std::lock_guard lock(stats_mu_);
  return stats_;
}

void PublishBatcher::count(std::size_t publishes, std::size_t rounds) {
  std::lock_guard lock(stats_mu_);
  ++stats_.commits;
  stats_.messages += publishes;
  stats_.largest = std::max<std::uint64_t>(stats_.largest, publishes);
  stats_.rounds += rounds;
}

void PublishBatcher::commit(std::deque<Item>& batch) {
  store::WriteBatch write;
  std::vector<Done> answers;
  std::vector<Round*> rounds;
  for (auto& item : batch) {
    if (auto* p = std::get_if<Publish>(&item)) {
      write.publishes.push_back(std::move(p->message));
      answers.push_back(std::move(p->done));
    } else {
      rounds.push_back(&std::get<Round>(item));
    }
  }
  // One dispatcher per process: a second round in one batch is rare; it commits on its own.
  if (!rounds.empty()) write.round = std::move(rounds.front()->round);
  auto result = store_.write_batch(write);
  count(answers.size(), rounds.size());
  if (!rounds.empty()) rounds.front()->done->set_value(std::move(*result.round));
  for (std::size_t i = 1; i < rounds.size(); ++i) {
    rounds[i]->done->set_value(round_alone(std::move(rounds[i]->round)));
  }
  if (answers.empty()) return;
  auto& outcomes = result.published;
  // Wake the consumer before answering: the deliveries are durable already.
  if (outcomes && on_committed_ &&
      std::ranges::any_of(*outcomes, [](const auto& o) { return o.deliveries_created > 0; })) {
    on_committed_();
  }
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (!outcomes) {
      answers[i](std::unexpected(outcomes.error()));
    } else if (i < outcomes->size()) {
      answers[i](std::move((*outcomes)[i]));
    } else {
      answers[i](fail(ErrorCode::kInternal, "write_batch returned too few outcomes"));
    }
  }
}

}  // namespace hookd::api
