// RetentionPurger over a scripted RetentionStore: the requests a policy makes (which kinds,
// which cutoffs), batches continued from the last id until done, the pass ending at the first
// failure (and still reading the counts), stop() cutting a long pass short at a batch
// boundary, reclaiming only after something was deleted, and the background thread's first
// pass after min(first_pass_after, interval).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "env/fake_env.hpp"
#include "store/retention_purger.hpp"

namespace hookd::store {
namespace {

using namespace std::chrono_literals;
constexpr Millis kPurgerDay = 86'400'000;

class ScriptedStore final : public RetentionStore {
 public:
  // Each kind gives `batches_per_kind` batches of `per_batch` rows, the last one done.
  int batches_per_kind = 3;
  int per_batch = 2;
  std::optional<RetentionKind> fail_on;
  std::int64_t free_pages = 0;

  Result<PurgeBatch> purge_batch(const PurgeRequest& r) override {
    std::lock_guard lock(mu_);
    requests.push_back(r);
    if (fail_on == r.kind) return fail(ErrorCode::kUnavailable, "disk I/O error");
    const int n = ++served_[static_cast<int>(r.kind)];
    calls.fetch_add(1);
    return PurgeBatch{per_batch, "id-" + std::to_string(n), n >= batches_per_kind};
  }
  Result<std::vector<RetentionStat>> retention_stats() override {
    ++stats_reads;
    return std::vector<RetentionStat>{{RetentionKind::kMessages, 7, 1}};
  }
  Result<std::int64_t> reclaim_space(int max_pages) override {
    const std::int64_t freed = std::min<std::int64_t>(free_pages, max_pages);
    free_pages -= freed;
    ++reclaims;
    return freed;
  }

  std::mutex mu_;
  std::vector<PurgeRequest> requests;
  std::map<int, int> served_;
  std::atomic<int> calls{0};
  int stats_reads = 0;
  int reclaims = 0;
};

PurgerOptions quick() {
  PurgerOptions o;
  o.pause = 0ms;
  o.batch_size = 10;
  return o;
}

TEST(RetentionPurger, TheDefaultPolicyAsksForEveryKindWithItsCutoffs) {
  PurgerOptions o;
  o.reconcile_margin = 3 * kPurgerDay;
  const Millis now = 1000 * kPurgerDay;
  const auto r = purge_requests(o, now);
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].kind, RetentionKind::kMessages);
  EXPECT_EQ(r[0].settled_before, now - 30 * kPurgerDay);
  EXPECT_EQ(r[0].dead_before, now - 90 * kPurgerDay);
  EXPECT_EQ(r[1].kind, RetentionKind::kInbox);
  EXPECT_EQ(r[1].settled_before, now - 30 * kPurgerDay);
  EXPECT_EQ(r[1].dead_before, now - 90 * kPurgerDay);
  EXPECT_EQ(r[1].reconcile_margin, 3 * kPurgerDay);
  EXPECT_EQ(r[2].settled_before, now - 365 * kPurgerDay);
  EXPECT_EQ(r[3].kind, RetentionKind::kIdempotencyKeys);
  EXPECT_EQ(r[3].settled_before, now);
  EXPECT_EQ(r[4].kind, RetentionKind::kProxyKeys);
  for (const auto& req : r) EXPECT_EQ(req.limit, 500);
}

TEST(RetentionPurger, KeptForeverMeansNotAsked) {
  PurgerOptions o;
  o.policy.delivered.reset();  // messages kept: their dead letters too
  o.policy.inbox.reset();      // only dead inbound events
  o.policy.audit.reset();
  o.policy.expired_keys = false;
  const auto r = purge_requests(o, 1000 * kPurgerDay);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, RetentionKind::kInbox);
  EXPECT_FALSE(r[0].settled_before.has_value());
  EXPECT_TRUE(r[0].dead_before.has_value());
}

TEST(RetentionPurger, APassContinuesEachKindFromItsLastIdUntilDone) {
  ScriptedStore store;
  store.free_pages = 2500;
  env::FakeClock clock;
  RetentionPurger purger(store, clock, quick());
  const auto report = purger.run_pass();
  EXPECT_FALSE(report.error.has_value());
  EXPECT_EQ(report.batches, 15);
  EXPECT_EQ(report.deleted_total(), 30);
  EXPECT_EQ(report.deleted[0], 6);
  ASSERT_EQ(store.requests.size(), 15u);
  EXPECT_EQ(store.requests[0].after_id, "");
  EXPECT_EQ(store.requests[1].after_id, "id-1");
  EXPECT_EQ(store.requests[2].after_id, "id-2");
  EXPECT_EQ(store.requests[3].after_id, "");  // the next kind starts over
  EXPECT_EQ(report.reclaimed_pages, 2500);    // steps of 1,000 until fewer came back
  EXPECT_EQ(store.reclaims, 3);
  ASSERT_EQ(report.stats.size(), 1u);
  EXPECT_EQ(report.stats[0].rows, 7);
}

TEST(RetentionPurger, AFailureEndsThePassButTheCountsAreStillRead) {
  ScriptedStore store;
  store.fail_on = RetentionKind::kInbox;
  env::FakeClock clock;
  int reported = 0;
  RetentionPurger purger(store, clock, quick(), [&](const PassReport&) { ++reported; });
  const auto report = purger.run_pass();
  ASSERT_TRUE(report.error.has_value());
  EXPECT_EQ(report.error->message, "disk I/O error");
  EXPECT_EQ(report.deleted[0], 6);  // messages went before
  EXPECT_EQ(report.deleted[2], 0);  // audit never asked
  EXPECT_EQ(store.reclaims, 0);     // no reclaim after a failure
  EXPECT_EQ(store.stats_reads, 1);
  EXPECT_EQ(reported, 1);
}

TEST(RetentionPurger, NothingDeletedNothingReclaimed) {
  ScriptedStore store;
  store.per_batch = 0;
  store.free_pages = 100;
  env::FakeClock clock;
  RetentionPurger purger(store, clock, quick());
  EXPECT_EQ(purger.run_pass().reclaimed_pages, 0);
  EXPECT_EQ(store.reclaims, 0);
}

TEST(RetentionPurger, StopCutsALongPassShortAtABatchBoundary) {
  ScriptedStore store;
  store.batches_per_kind = 1'000'000;  // a pass that would take hours with its pauses
  env::FakeClock clock;
  auto o = quick();
  o.pause = 50ms;
  o.interval = 10min;
  o.first_pass_after = 0ms;
  std::optional<PassReport> last;
  std::mutex mu;
  RetentionPurger purger(store, clock, o, [&](const PassReport& r) {
    std::lock_guard lock(mu);
    last = r;
  });
  purger.start();
  for (int i = 0; i < 2000 && store.calls.load() < 3; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_GE(store.calls.load(), 3) << "the first pass never began";
  purger.stop();  // returns within a pause, not after a million batches
  std::lock_guard lock(mu);
  ASSERT_TRUE(last.has_value());
  EXPECT_TRUE(last->interrupted);
  EXPECT_LT(last->batches, 1000);
  const int after = store.calls.load();
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(store.calls.load(), after) << "no batch after stop()";
}

TEST(RetentionPurger, NoBackgroundPassesWithoutAnInterval) {
  ScriptedStore store;
  env::FakeClock clock;
  auto o = quick();
  o.interval = 0ms;
  o.first_pass_after = 0ms;
  RetentionPurger purger(store, clock, o);
  purger.start();
  std::this_thread::sleep_for(50ms);
  purger.stop();
  EXPECT_EQ(store.calls.load(), 0);
}

}  // namespace
}  // namespace hookd::store
