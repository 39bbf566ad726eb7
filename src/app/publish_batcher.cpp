#include "app/publish_batcher.hpp"

#include <utility>

namespace hookd::app {

store::Written<PublishSpec> PublishSpec::write(Writer& store, std::vector<Value> publishes,
                                               std::optional<Round> round) {
  store::WriteBatch batch;
  batch.publishes = std::move(publishes);
  batch.round = std::move(round);
  auto result = store.write_batch(batch);
  return {std::move(result.published), std::move(result.round)};
}

api::PublishPort::Stats PublishBatcher::stats() const {
  const auto s = RoundSharingBatcher::stats();
  return {s.commits, s.items, s.largest, s.rounds};
}

}  // namespace hookd::app
