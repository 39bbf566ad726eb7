// The reconciler's store on several PostgreSQL nodes (PgStore instances with their own pools
// on one schema), from real threads: of nodes racing reconcile_begin on one source exactly
// one takes the lease — a source never seen (the row is created), a held one (its holder
// only, retaking it), a released one, an expired one — over many repetitions; a stale run's page is
// refused while another node takes over; and two nodes acting on one difference at once apply the
// action once (one repair insert, one action record).
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "store/postgres_support.hpp"
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

constexpr std::int64_t kPgReconcileLease = 60'000;
constexpr int kNodes = 2;
constexpr int kThreadsPerNode = 2;
constexpr int kContenders = kNodes * kThreadsPerNode;

class PgReconcileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string schema = PgSchemas::instance().fresh();
    for (int i = 0; i < kNodes; ++i) {
      nodes_.push_back(open_pg_store(schema, clock_, ids_));
      ASSERT_NE(nodes_.back(), nullptr);
    }
    ASSERT_TRUE(nodes_[0]->migrate().has_value());
  }

  struct Race {
    int won = 0;
    int refused = 0;
    int other = 0;
    std::vector<ReconcileStart> starts;
  };

  // Every contender (kThreadsPerNode threads on each node, each its own owner) calls
  // `attempt(node, owner)` at once.
  Race race(const std::function<Result<ReconcileStart>(Store&, const std::string&)>& attempt) {
    std::barrier start(kContenders);
    std::vector<Result<ReconcileStart>> results(kContenders, ReconcileStart{});
    std::vector<std::thread> threads;
    for (int t = 0; t < kContenders; ++t) {
      threads.emplace_back([&, t] {
        Store& node = *nodes_[static_cast<std::size_t>(t % kNodes)];
        const std::string owner =
            "node" + std::to_string(t % kNodes) + "/reconcile-" + std::to_string(t / kNodes);
        start.arrive_and_wait();
        results[static_cast<std::size_t>(t)] = attempt(node, owner);
      });
    }
    for (auto& th : threads) th.join();
    Race out;
    for (auto& r : results) {
      if (r) {
        ++out.won;
        out.starts.push_back(*r);
      } else if (r.error().code == ErrorCode::kConflict) {
        ++out.refused;
      } else {
        ++out.other;
        ADD_FAILURE() << r.error().message;
      }
    }
    return out;
  }

  Race race_begin(const std::string& source) {
    return race([&](Store& node, const std::string& owner) {
      return node.reconcile_begin(source, owner, kPgReconcileLease, "interval");
    });
  }

  // Exactly one contender won, and the source's lease is its.
  void expect_one_winner(const Race& r, const std::string& source) {
    ASSERT_EQ(r.won, 1);
    EXPECT_EQ(r.refused, kContenders - 1);
    EXPECT_EQ(r.other, 0);
    auto cursor = nodes_[1]->reconcile_cursor(source);
    ASSERT_TRUE(cursor.has_value());
    EXPECT_EQ(cursor->lease_owner, r.starts[0].run.owner);
    EXPECT_EQ(cursor->lease_until, clock_.now_ms() + kPgReconcileLease);
  }

  FakeClock clock_;
  FakeIds ids_;
  std::vector<std::unique_ptr<postgres::PgStore>> nodes_;
};

TEST_F(PgReconcileTest, NodesRacingForALeaseLetExactlyOneWin) {
  constexpr int kRepetitions = 30;
  for (int i = 0; i < kRepetitions; ++i) {
    SCOPED_TRACE("repetition " + std::to_string(i));
    const std::string source = "source-" + std::to_string(i);

    auto fresh = race_begin(source);  // no row yet: the inserts race
    expect_one_winner(fresh, source);
    if (fresh.won != 1) return;

    auto held = race_begin(source);  // held: only its holder may take it again
    expect_one_winner(held, source);
    if (held.won != 1) return;
    EXPECT_EQ(held.starts[0].run.owner, fresh.starts[0].run.owner);

    ASSERT_TRUE(
        nodes_[0]
            ->reconcile_finish(fresh.starts[0].run.id, fresh.starts[0].run.owner, std::nullopt)
            .has_value());
    auto released = race_begin(source);  // free again: the updates race
    expect_one_winner(released, source);
    if (released.won != 1) return;

    clock_.advance(kPgReconcileLease);  // the winner died: its lease ran out
    auto expired = race_begin(source);
    expect_one_winner(expired, source);

    auto runs = nodes_[1]->reconcile_list_runs(source, PageRequest{});
    ASSERT_TRUE(runs.has_value());
    EXPECT_EQ(runs->data.size(), 4u);
  }
}

// A page of a run whose lease ran out is refused, also while another node takes the source
// over at the same moment; the cursor stays where it was.
TEST_F(PgReconcileTest, OnlyTheLeaseHoldersPagesAreKept) {
  constexpr int kRepetitions = 20;
  for (int i = 0; i < kRepetitions; ++i) {
    SCOPED_TRACE("repetition " + std::to_string(i));
    const std::string source = "paged-" + std::to_string(i);
    auto first =
        nodes_[0]->reconcile_begin(source, "node0/reconcile", kPgReconcileLease, "interval");
    ASSERT_TRUE(first.has_value());
    clock_.advance(kPgReconcileLease);  // node 0 stalls past its lease
    std::barrier start(2);
    Result<ReconcileStart> taken = ReconcileStart{};
    Result<ReconcilePageResult> paged = ReconcilePageResult{};
    std::thread taker([&] {
      start.arrive_and_wait();
      taken = nodes_[1]->reconcile_begin(source, "node1/reconcile", kPgReconcileLease, "interval");
    });
    std::thread pager([&] {
      ReconcilePage p;
      p.source = source;
      p.run_id = first->run.id;
      p.lease_owner = "node0/reconcile";
      p.next_cursor = "moved";
      start.arrive_and_wait();
      paged = nodes_[0]->reconcile_apply_page(p);
    });
    taker.join();
    pager.join();
    ASSERT_TRUE(taken.has_value()) << taken.error().message;
    ASSERT_FALSE(paged.has_value());
    EXPECT_EQ(paged.error().code, ErrorCode::kConflict);
    auto cursor = nodes_[1]->reconcile_cursor(source).value();
    EXPECT_EQ(cursor.cursor, "");
    EXPECT_EQ(cursor.lease_owner, "node1/reconcile");
  }
}

TEST_F(PgReconcileTest, NodesActingOnOneDifferenceApplyItOnce) {
  constexpr int kRepetitions = 20;
  for (int i = 0; i < kRepetitions; ++i) {
    SCOPED_TRACE("repetition " + std::to_string(i));
    const std::string event_id = "evt-" + std::to_string(i);
    auto start = nodes_[0]->reconcile_begin("esign", "node0/reconcile", kPgReconcileLease, "api");
    ASSERT_TRUE(start.has_value());
    ReconcileItem item;
    item.event.source = "esign";
    item.event.event_id = event_id;
    item.event.payload = "{}";
    item.difference.detail = "never received";
    ReconcilePage p;
    p.source = "esign";
    p.run_id = start->run.id;
    p.lease_owner = "node0/reconcile";
    p.items = {item};
    p.repair = false;  // manual: a person repairs it
    auto applied = nodes_[0]->reconcile_apply_page(p);
    ASSERT_TRUE(applied.has_value()) << applied.error().message;
    ASSERT_EQ(applied->recorded.size(), 1u);
    ASSERT_TRUE(
        nodes_[0]->reconcile_finish(start->run.id, "node0/reconcile", std::nullopt).has_value());
    const std::string id = applied->recorded[0].id;

    std::barrier go(kContenders);
    std::atomic<int> done{0}, refused{0}, other{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kContenders; ++t) {
      threads.emplace_back([&, t] {
        DifferenceAct act;
        act.difference_id = id;
        act.action = DifferenceAction::kRepair;
        act.by = "ops-" + std::to_string(t);
        go.arrive_and_wait();
        auto r = nodes_[static_cast<std::size_t>(t % kNodes)]->reconcile_act(act);
        if (r) {
          ++done;
        } else if (r.error().code == ErrorCode::kConflict) {
          ++refused;
        } else {
          ++other;
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(done.load(), 1);
    EXPECT_EQ(refused.load(), kContenders - 1);
    EXPECT_EQ(other.load(), 0);
    EXPECT_EQ(nodes_[1]->reconcile_actions(id)->size(), 1u);
    EXPECT_EQ(nodes_[1]->reconcile_get_difference(id)->state, DifferenceState::kRepaired);
    auto ev = nodes_[1]->inbox_find("esign", event_id);
    ASSERT_TRUE(ev.has_value());
    EXPECT_EQ(nodes_[1]->inbox_history(ev->id)->size(), 1u);
  }
}

}  // namespace
}  // namespace hookd::store::testing
