#include "inbound/inbox_batcher.hpp"

#include <utility>

namespace hookd::inbound {

store::Written<InboxSpec> InboxSpec::write(Writer& store, std::vector<Value> events,
                                           std::optional<Round> round) {
  store::InboxWriteBatch batch;
  batch.inserts = std::move(events);
  batch.round = std::move(round);
  auto result = store.inbox_write_batch(std::move(batch));
  return {std::move(result.inserted), std::move(result.round)};
}

}  // namespace hookd::inbound
