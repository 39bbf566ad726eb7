// PublishBatcher: group commit answers every item and tells its owner (the dispatcher's
// wake-up) only when a commit created deliveries; a round shares the publishes' commit;
// stop() answers every queued publish, committing them.
#include "app/publish_batcher.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "support/concurrency.hpp"

namespace hookd::app {
namespace {

using hookd::testing::wait_until;

// Creates one delivery per message unless the event type is "nobody"; a round claims
// `claimable` deliveries. Counts write_batch calls and what each carried.
class FakeWriter final : public store::BatchWriter {
 public:
  store::WriteBatchResult write_batch(const store::WriteBatch& batch) override {
    if (++batches == 1 && hold_first.valid()) hold_first.wait();
    store::WriteBatchResult out;
    if (full) {
      out.published = fail(ErrorCode::kUnavailable, "database or disk is full");
      if (batch.round) out.round = fail(ErrorCode::kUnavailable, "database or disk is full");
      return out;
    }
    std::vector<store::PublishOutcome> published;
    for (const auto& m : batch.publishes) {
      store::PublishOutcome o;
      o.message.event_type = m.event_type;
      o.deliveries_created = m.event_type == "nobody" ? 0 : 1;
      published.push_back(std::move(o));
    }
    out.published = std::move(published);
    if (batch.round) {
      ++rounds;
      if (!batch.publishes.empty()) ++shared;
      store::DispatchRoundResult r;
      r.claimed.resize(static_cast<std::size_t>(batch.round->claim_limit));
      out.round = std::move(r);
    }
    return out;
  }
  std::atomic<int> batches{0};
  std::atomic<int> rounds{0};
  std::atomic<int> shared{0};           // rounds committed together with publishes
  std::shared_future<void> hold_first;  // if set, the first write_batch waits for it
  std::atomic<bool> full{false};        // if set, every commit fails as on a full disk
};

Result<store::PublishOutcome> publish_one(PublishBatcher& batcher, std::string event_type) {
  std::promise<Result<store::PublishOutcome>> answered;
  store::NewMessage m;
  m.app_id = "app_1";
  m.event_type = std::move(event_type);
  EXPECT_TRUE(batcher.submit(
      std::move(m), [&](Result<store::PublishOutcome> r) { answered.set_value(std::move(r)); }));
  return answered.get_future().get();
}

TEST(PublishBatcherTest, CommitThatCreatedDeliveriesCallsTheHookBeforeAnswering) {
  FakeWriter store;
  std::atomic<int> hooks{0};
  PublishBatcher batcher(store, 16, 100, [&] { ++hooks; });
  batcher.start();
  auto created = publish_one(batcher, "order.created");
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->deliveries_created, 1);
  EXPECT_EQ(hooks.load(), 1);  // called before the answer
  auto nobody = publish_one(batcher, "nobody");
  ASSERT_TRUE(nobody.has_value());
  EXPECT_EQ(hooks.load(), 1);  // nothing to deliver: no wake-up
  batcher.stop();
  EXPECT_EQ(store.batches.load(), 2);
}

// Readiness hears every commit's outcome (app/store_health.hpp): a failed commit of publishes
// or of a round alone reports its error, a commit of publishes reports ok, an empty round that
// succeeds reports nothing (it may have written nothing, so it proves nothing).
TEST(PublishBatcherTest, EveryCommitsOutcomeReachesTheCommitStatusHook) {
  FakeWriter store;
  PublishBatcher batcher(store, 16, 100);
  std::mutex mutex;
  std::vector<Status> seen;
  batcher.on_commit_status([&](const Status& s) {
    std::lock_guard lock(mutex);
    seen.push_back(s);
  });
  batcher.start();
  ASSERT_TRUE(publish_one(batcher, "order.created").has_value());
  store.full = true;
  auto refused = publish_one(batcher, "order.created");
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, ErrorCode::kUnavailable);
  store::DispatchRound round;
  EXPECT_FALSE(batcher.commit_round(round).has_value());
  store.full = false;
  EXPECT_TRUE(batcher.commit_round(round).has_value());  // empty and fine: not reported
  batcher.stop();
  std::lock_guard lock(mutex);
  ASSERT_EQ(seen.size(), 3U);
  EXPECT_TRUE(seen[0].has_value());
  ASSERT_FALSE(seen[1].has_value());
  EXPECT_EQ(seen[1].error().code, ErrorCode::kUnavailable);
  EXPECT_FALSE(seen[2].has_value());
}

TEST(PublishBatcherTest, WorksWithoutAHook) {
  FakeWriter store;
  PublishBatcher batcher(store, 16, 100);
  batcher.start();
  EXPECT_TRUE(publish_one(batcher, "order.created").has_value());
  batcher.stop();
}

TEST(PublishBatcherTest, ARoundWhileStoppedGoesStraightToTheStore) {
  FakeWriter store;
  PublishBatcher batcher(store, 16, 100);
  store::DispatchRound round;
  round.claim_limit = 3;
  auto r = batcher.commit_round(round);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->claimed.size(), 3U);
  EXPECT_EQ(store.rounds.load(), 1);
}

// Submits one publish; `answered` counts the successful answers.
bool submit_counted(PublishBatcher& batcher, std::atomic<int>& answered) {
  store::NewMessage m;
  m.event_type = "order.created";
  return batcher.submit(std::move(m), [&answered](Result<store::PublishOutcome> r) {
    if (r) ++answered;
  });
}

// The point of routing rounds through the batcher: a round queued while publishes wait
// shares their commit. The first commit is held open until four publishes and the round are
// queued behind it; the next commit must carry all five.
TEST(PublishBatcherTest, ARoundQueuedWithPublishesSharesTheirCommit) {
  FakeWriter store;
  PublishBatcher batcher(store, 16, 100);
  hookd::testing::HeldCommit first;  // after the batcher: released before it is destroyed
  store.hold_first = first.held();
  batcher.start();
  std::atomic<int> answered{0};
  auto submit = [&] { return submit_counted(batcher, answered); };
  ASSERT_TRUE(submit());  // the committer takes it and waits in write_batch
  wait_until([&] { return store.batches.load() == 1; });
  ASSERT_EQ(store.batches.load(), 1);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(submit());
  store::DispatchRound round;
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

// What App::stop relies on (it stops the batcher after the API and the dispatcher): stop()
// commits and answers every publish still queued before the committer ends, and refuses
// publishes after (the API answers those 503).
TEST(PublishBatcherTest, StopAnswersEveryQueuedPublishCommittingThem) {
  FakeWriter store;
  PublishBatcher batcher(store, 16, 100);
  hookd::testing::HeldCommit first;  // after the batcher: released before it is destroyed
  store.hold_first = first.held();
  batcher.start();
  std::atomic<int> answered{0};
  auto submit = [&] { return submit_counted(batcher, answered); };
  ASSERT_TRUE(submit());  // the committer takes it and waits in write_batch
  wait_until([&] { return store.batches.load() == 1; });
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(submit());
  auto stopped = std::async(std::launch::async, [&] { batcher.stop(); });
  first.release();
  stopped.get();
  EXPECT_EQ(answered.load(), 5);
  EXPECT_EQ(store.batches.load(), 2);
  EXPECT_FALSE(submit());
}

}  // namespace
}  // namespace hookd::app
