#include "proxy/key_committer.hpp"

#include <utility>
#include <vector>

namespace hookd::proxy {

KeyCommitter::KeyCommitter(store::ProxyKeyStore& store, std::size_t max_batch,
                           std::size_t max_queue)
    : store_(store),
      queue_(
          max_batch, max_queue, [this](std::deque<Item>& batch) { commit(batch); },
          "hookd-proxykeys") {}

void KeyCommitter::start() { queue_.start(); }

void KeyCommitter::stop() { queue_.stop(); }

bool KeyCommitter::claim(store::ProxyClaim claim, ClaimDone done) {
  Item item;
  item.claim = std::move(claim);
  item.claim_done = std::move(done);
  return queue_.submit(std::move(item));
}

bool KeyCommitter::record(store::ProxyKeyOutcome outcome, OutcomeDone done) {
  Item item;
  item.outcome = std::move(outcome);
  item.outcome_done = std::move(done);
  return queue_.submit(std::move(item));
}

namespace {

// Hands each item its result, moved out of the store's (in order); `results` is null when the
// batch failed, and every item then gets `error`.
template <class Item, class Results, class Done>
void deliver(const std::vector<Item*>& items, Results* results, const Error* error,
             Done Item::*done) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (results == nullptr) {
      (items[i]->*done)(std::unexpected(*error));
    } else if (i < results->size()) {
      (items[i]->*done)(std::move((*results)[i]));
    } else {
      (items[i]->*done)(fail(ErrorCode::kInternal, "the store returned too few results"));
    }
  }
}

}  // namespace

// Outcomes and claims keep their order among themselves; the store applies outcomes first.
void KeyCommitter::commit(std::deque<Item>& batch) {
  store::ProxyWriteBatch write;
  std::vector<Item*> claims;
  std::vector<Item*> outcomes;
  for (Item& item : batch) {
    if (item.claim) {
      write.claims.push_back(std::move(*item.claim));
      claims.push_back(&item);
    } else if (item.outcome) {
      write.outcomes.push_back(std::move(*item.outcome));
      outcomes.push_back(&item);
    }
  }
  auto written = store_.proxy_write_batch(write);
  const Error* error = written ? nullptr : &written.error();
  deliver(outcomes, written ? &written->outcomes : nullptr, error, &Item::outcome_done);
  deliver(claims, written ? &written->claims : nullptr, error, &Item::claim_done);
}

}  // namespace hookd::proxy
