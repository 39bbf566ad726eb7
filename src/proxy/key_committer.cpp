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
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (!written) {
      outcomes[i]->outcome_done(std::unexpected(written.error()));
    } else if (i < written->outcomes.size()) {
      outcomes[i]->outcome_done(std::move(written->outcomes[i]));
    } else {
      outcomes[i]->outcome_done(fail(ErrorCode::kInternal, "the store returned too few results"));
    }
  }
  for (std::size_t i = 0; i < claims.size(); ++i) {
    if (!written) {
      claims[i]->claim_done(std::unexpected(written.error()));
    } else if (i < written->claims.size()) {
      claims[i]->claim_done(std::move(written->claims[i]));
    } else {
      claims[i]->claim_done(fail(ErrorCode::kInternal, "the store returned too few results"));
    }
  }
}

}  // namespace hookd::proxy
