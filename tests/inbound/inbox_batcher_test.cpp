// InboxBatcher: group commit answers every event with its own outcome, wakes the forwarder
// only when something new was stored, and commits the forwarder's round together with the
// events queued meanwhile (one inbox_write_batch).
#include "inbound/inbox_batcher.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

#include "support/concurrency.hpp"

namespace hookd::inbound {
namespace {

using hookd::testing::HeldCommit;
using hookd::testing::wait_until;

// Event ids starting with "dup" are duplicates; a round claims `claim_limit` events. Counts
// inbox_write_batch calls and what each carried.
class FakeInbox final : public store::InboxBatchWriter {
 public:
  store::InboxWriteBatchResult inbox_write_batch(store::InboxWriteBatch batch) override {
    if (++batches == 1 && hold_first.valid()) hold_first.wait();
    store::InboxWriteBatchResult out;
    std::vector<store::InboxInsertOutcome> inserted;
    for (const auto& e : batch.inserts) {
      inserted.push_back({!e.event_id.starts_with("dup"), e.event_id});
    }
    out.inserted = std::move(inserted);
    if (batch.round) {
      ++rounds;
      if (!batch.inserts.empty()) ++shared;
      store::InboxRoundResult r;
      r.claimed.resize(static_cast<std::size_t>(batch.round->claim_limit));
      out.round = std::move(r);
    }
    return out;
  }
  std::atomic<int> batches{0};
  std::atomic<int> rounds{0};
  std::atomic<int> shared{0};           // rounds committed together with events
  std::shared_future<void> hold_first;  // if set, the first inbox_write_batch waits for it
};

store::InboxEvent event(std::string_view id) {
  store::InboxEvent e;
  e.source = "s";
  e.event_id = id;
  return e;
}

Result<store::InboxInsertOutcome> receive(InboxBatcher& batcher, std::string_view id) {
  std::promise<Result<store::InboxInsertOutcome>> answered;
  EXPECT_TRUE(batcher.submit(
      event(id), [&](Result<store::InboxInsertOutcome> r) { answered.set_value(std::move(r)); }));
  return answered.get_future().get();
}

TEST(InboxBatcherTest, AnswersEachEventAndWakesOnlyForNewOnes) {
  FakeInbox store;
  InboxBatcher batcher(store, 16, 100);
  std::atomic<int> wakes{0};
  batcher.on_committed([&] { ++wakes; });
  batcher.start();
  auto fresh = receive(batcher, "e1");
  ASSERT_TRUE(fresh.has_value());
  EXPECT_TRUE(fresh->inserted);
  EXPECT_EQ(fresh->id, "e1");
  EXPECT_EQ(wakes.load(), 1);
  auto dup = receive(batcher, "dup-e1");
  ASSERT_TRUE(dup.has_value());
  EXPECT_FALSE(dup->inserted);
  EXPECT_EQ(wakes.load(), 1);  // nothing new: no wake-up
  batcher.stop();
  EXPECT_EQ(batcher.stats().items, 2U);
}

TEST(InboxBatcherTest, ARoundWhileStoppedGoesStraightToTheStore) {
  FakeInbox store;
  InboxBatcher batcher(store, 16, 100);
  store::InboxRound round;
  round.claim_limit = 3;
  auto r = batcher.commit_round(round);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->claimed.size(), 3U);
  EXPECT_EQ(store.rounds.load(), 1);
  EXPECT_EQ(store.shared.load(), 0);
}

// A round queued while events wait shares their commit: the first commit is held open until
// four events and the round are queued behind it; the next commit must carry all five.
TEST(InboxBatcherTest, ARoundQueuedWithEventsSharesTheirCommit) {
  FakeInbox store;
  InboxBatcher batcher(store, 16, 100);
  HeldCommit first;  // after the batcher: released before it is destroyed
  store.hold_first = first.held();
  batcher.start();
  std::atomic<int> answered{0};
  static constexpr std::string_view kIds[] = {"e0", "e1", "e2", "e3", "e4"};
  auto submit = [&](int i) {
    return batcher.submit(event(kIds[i]), [&](Result<store::InboxInsertOutcome> r) {
      if (r && r->inserted) ++answered;
    });
  };
  ASSERT_TRUE(submit(0));  // the committer takes it and waits in inbox_write_batch
  wait_until([&] { return store.batches.load() == 1; });
  ASSERT_EQ(store.batches.load(), 1);
  for (int i = 1; i <= 4; ++i) ASSERT_TRUE(submit(i));
  store::InboxRound round;
  round.claim_limit = 2;
  auto claimed = std::async(std::launch::async, [&] { return batcher.commit_round(round); });
  wait_until([&] { return batcher.queued() == 5; });
  ASSERT_EQ(batcher.queued(), 5U);
  first.release();
  auto r = claimed.get();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->claimed.size(), 2U);
  batcher.stop();
  EXPECT_EQ(answered.load(), 5);
  EXPECT_EQ(store.batches.load(), 2);
  EXPECT_EQ(store.shared.load(), 1);
  EXPECT_EQ(batcher.stats().rounds, 1U);
}

}  // namespace
}  // namespace hookd::inbound
