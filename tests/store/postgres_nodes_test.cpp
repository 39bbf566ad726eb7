// Several "nodes" (PgStore instances with their own pools) on one PostgreSQL schema, from
// real threads: claims never hand a row to two nodes, a FIFO ordering key and an inbox
// entity are worked by one node at a time, a dead node's leases pass to another, the
// idempotency gateway's keys are claimed once across nodes, concurrent migrations run once,
// and a dropped connection is an kUnavailable the pool recovers from.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "store/postgres/pg_migrations.hpp"
#include "store/postgres_support.hpp"
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using Next = AttemptReport::Next;

class PgNodesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = PgSchemas::instance().fresh();
    for (int i = 0; i < 2; ++i) {
      nodes_.push_back(open_pg_store(schema_, clock_, ids_));
      ASSERT_NE(nodes_.back(), nullptr);
    }
    ASSERT_TRUE(nodes_[0]->migrate().has_value());
    Application app;
    app.name = "nodes";
    app_ = nodes_[0]->create_application(app).value();
  }

  Endpoint endpoint(bool fifo) {
    Endpoint ep;
    ep.app_id = app_.id;
    ep.url = "https://receiver.example/hook";
    ep.secrets.current = "whsec_c2VjcmV0";
    ep.fifo = fifo;
    return nodes_[0]->create_endpoint(ep).value();
  }

  void publish_many(int count, int keys) {
    std::vector<NewMessage> batch;
    for (int i = 0; i < count; ++i) {
      NewMessage m;
      m.app_id = app_.id;
      m.event_type = "e";
      m.payload = "{}";
      if (keys > 0) m.ordering_key = "k" + std::to_string(i % keys);
      batch.push_back(std::move(m));
      if (batch.size() == 100 || i + 1 == count) {
        ASSERT_TRUE(nodes_[i % 2]->publish_batch(batch).has_value());
        batch.clear();
      }
    }
  }

  // Runs `work(node, worker)` on two workers per node until every one returns false.
  void run_workers(const std::function<bool(Store&, const std::string&)>& work) {
    std::vector<std::thread> threads;
    for (int n = 0; n < 2; ++n) {
      for (int w = 0; w < 2; ++w) {
        threads.emplace_back([&, n, w] {
          const std::string owner = "node" + std::to_string(n) + "/w" + std::to_string(w);
          for (int idle = 0; idle < 20;) idle = work(*nodes_[n], owner) ? 0 : idle + 1;
        });
      }
    }
    for (auto& t : threads) t.join();
  }

  std::string schema_;
  FakeClock clock_;
  FakeIds ids_;
  std::vector<std::unique_ptr<postgres::PgStore>> nodes_;
  Application app_;
};

AttemptReport delivered(const Delivery& d) {
  AttemptReport r;
  r.delivery_id = d.id;
  r.lease_owner = d.lease_owner.value_or("");
  r.attempt.response_status = 200;
  r.next = Next::kDelivered;
  return r;
}

TEST_F(PgNodesTest, ConcurrentClaimsNeverHandARowToTwoNodes) {
  endpoint(false);
  publish_many(1000, 0);
  std::mutex mu;
  std::multiset<std::string> claimed;
  run_workers([&](Store& node, const std::string& owner) {
    auto got = node.claim_due({owner, 30'000, 25});
    if (!got || got->empty()) return false;
    std::vector<AttemptReport> reports;
    for (const auto& d : *got) reports.push_back(delivered(d));
    {
      std::lock_guard lock(mu);
      for (const auto& d : *got) claimed.insert(d.id);
    }
    auto recorded = node.record_attempts(reports);
    EXPECT_TRUE(recorded.has_value());
    for (const auto& r : *recorded) EXPECT_TRUE(r.has_value());
    return true;
  });
  EXPECT_EQ(claimed.size(), 1000u);
  EXPECT_EQ(std::set<std::string>(claimed.begin(), claimed.end()).size(), 1000u);
  EXPECT_EQ(nodes_[1]->count_deliveries(DeliveryStatus::kDelivered).value(), 1000);
}

// FIFO across nodes: the head's lease is the key's lease. A worker marks its key busy after
// claiming and frees it together with recording (under one mutex), so a second worker
// claiming the same key before the first recorded would find it busy.
TEST_F(PgNodesTest, FifoKeyIsWorkedByOneNodeAtATimeInSequence) {
  endpoint(true);
  publish_many(400, 5);
  std::mutex mu;
  std::set<std::string> busy;
  std::map<std::string, std::int64_t> last_sequence;
  std::atomic<int> overlaps{0}, out_of_order{0}, done{0};
  run_workers([&](Store& node, const std::string& owner) {
    auto got = node.claim_due({owner, 30'000, 10});
    if (!got || got->empty()) return false;
    {
      std::lock_guard lock(mu);
      for (const auto& d : *got) {
        if (!busy.insert(*d.ordering_key).second) ++overlaps;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // "sending"
    for (const auto& d : *got) {
      std::lock_guard lock(mu);
      auto& last = last_sequence[*d.ordering_key];
      if (*d.sequence != last + 1) ++out_of_order;
      last = *d.sequence;
      EXPECT_TRUE(node.record_attempt(delivered(d)).has_value());
      busy.erase(*d.ordering_key);
      ++done;
    }
    return true;
  });
  EXPECT_EQ(done, 400);
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(out_of_order, 0);
}

TEST_F(PgNodesTest, InboxEntityIsWorkedByOneNodeAtATimeInSequence) {
  std::vector<InboxEvent> events;
  for (int i = 0; i < 200; ++i) {
    InboxEvent e;
    e.source = "esign";
    e.event_id = "evt-" + std::to_string(i);
    e.entity_key = "doc-" + std::to_string(i % 4);
    e.sequence = i / 4;
    e.payload = "{}";
    events.push_back(std::move(e));
  }
  ASSERT_TRUE(nodes_[0]->inbox_insert_batch(events).has_value());
  std::mutex mu;
  std::set<std::string> busy;
  std::map<std::string, std::int64_t> last_sequence;
  std::atomic<int> overlaps{0}, out_of_order{0}, done{0};
  run_workers([&](Store& node, const std::string& owner) {
    InboxClaimRequest req;
    req.lease_owner = owner;
    req.limit = 4;
    auto got = node.inbox_claim(req);
    if (!got || got->empty()) return false;
    {
      std::lock_guard lock(mu);
      for (const auto& e : *got) {
        if (!busy.insert(*e.entity_key).second) ++overlaps;
      }
    }
    for (const auto& e : *got) {
      std::lock_guard lock(mu);
      auto [it, first] = last_sequence.emplace(*e.entity_key, *e.sequence);
      if (!first && *e.sequence != it->second + 1) ++out_of_order;
      it->second = *e.sequence;
      InboxStatusUpdate u;
      u.id = e.id;
      u.lease_owner = owner;
      u.to = InboxStatus::kProcessed;
      EXPECT_TRUE(node.inbox_update_status(u).has_value());
      busy.erase(*e.entity_key);
      ++done;
    }
    return true;
  });
  EXPECT_EQ(done, 200);
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(out_of_order, 0);
}

// A40 across nodes: every entity's events arrive 3, 1, 2 (each its own commit) while two
// nodes with two workers each claim, decide (stale when not newer than the entity's last
// sequence, read after the claim) and record. An entity is never in two workers' hands at
// once, even when an older event arrives while a newer one is in flight, and what would be
// forwarded strictly increases per entity.
TEST_F(PgNodesTest, A40_EntityEventsArrivingBackwardsAreNeverInTwoHandsNorForwardedBackwards) {
  constexpr int kEntities = 60;
  std::mutex mu;
  std::set<std::string> busy;
  std::map<std::string, std::vector<std::int64_t>> forwarded;
  std::atomic<int> overlaps{0}, done{0};
  std::thread arrivals([&] {
    for (int e = 0; e < kEntities; ++e) {
      for (std::int64_t seq : {3, 1, 2}) {
        InboxEvent ev;
        ev.source = "esign";
        ev.entity_key = "doc-" + std::to_string(e);
        ev.event_id = *ev.entity_key + "-s" + std::to_string(seq);
        ev.sequence = seq;
        ev.payload = "{}";
        EXPECT_TRUE(nodes_[e % 2]->inbox_insert(ev).has_value());
      }
    }
  });
  std::vector<std::thread> workers;
  for (int n = 0; n < 2; ++n) {
    for (int w = 0; w < 2; ++w) {
      workers.emplace_back([&, n, w] {
        Store& node = *nodes_[n];
        InboxClaimRequest req;
        req.lease_owner = "node" + std::to_string(n) + "/w" + std::to_string(w);
        req.limit = 4;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (done < kEntities * 3 && std::chrono::steady_clock::now() < deadline) {
          auto got = node.inbox_claim(req);
          if (!got) continue;
          std::vector<bool> stale;
          {
            std::lock_guard lock(mu);
            for (const auto& e : *got) {
              if (!busy.insert(*e.entity_key).second) ++overlaps;
            }
          }
          for (const auto& e : *got) {
            auto entity = node.inbox_entity("esign", *e.entity_key);
            // Sequences start at 1: 0 stands for "none yet".
            const std::int64_t last = entity && entity->last_sequence ? *entity->last_sequence : 0;
            InboxStatusUpdate u;
            u.id = e.id;
            u.lease_owner = req.lease_owner;
            u.to = *e.sequence <= last ? InboxStatus::kStale : InboxStatus::kProcessed;
            if (u.to == InboxStatus::kProcessed) {
              InboxEntity after;
              after.source = "esign";
              after.entity_key = *e.entity_key;
              after.last_sequence = std::max(last, *e.sequence);
              u.entity = after;
            }
            std::lock_guard lock(mu);
            if (u.to == InboxStatus::kProcessed) forwarded[*e.entity_key].push_back(*e.sequence);
            EXPECT_TRUE(node.inbox_update_status(u).has_value());
            busy.erase(*e.entity_key);
            ++done;
          }
        }
      });
    }
  }
  arrivals.join();
  for (auto& t : workers) t.join();
  EXPECT_EQ(done, kEntities * 3);
  EXPECT_EQ(overlaps, 0);
  for (const auto& [entity, seqs] : forwarded) {
    EXPECT_TRUE(std::adjacent_find(seqs.begin(), seqs.end(),
                                   [](auto a, auto b) { return a >= b; }) == seqs.end())
        << entity << " forwarded " << ::testing::PrintToString(seqs);
    EXPECT_EQ(nodes_[0]->inbox_entity("esign", entity)->last_sequence, 3) << entity;
  }
}

TEST_F(PgNodesTest, ADeadNodesLeasesPassToAnotherNodeWhenTheyExpire) {
  endpoint(true);
  publish_many(3, 1);
  auto held = nodes_[0]->claim_due({"node0", 5'000, 10}).value();  // then node0 "dies"
  ASSERT_EQ(held.size(), 1u);
  EXPECT_TRUE(nodes_[1]->claim_due({"node1", 5'000, 10})->empty());  // key still leased
  clock_.advance(5'000);
  auto taken = nodes_[1]->claim_due({"node1", 5'000, 10}).value();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].id, held[0].id);  // the same head, not the next in line
  auto late = nodes_[0]->record_attempt(delivered(held[0]));
  ASSERT_FALSE(late.has_value());
  EXPECT_EQ(late.error().code, ErrorCode::kConflict);
}

ProxyClaim proxy_claim(const std::string& key, const std::string& owner, Millis lease_ms) {
  ProxyClaim c;
  c.proxy = "orders";
  c.key = key;
  c.fingerprint = "fp";
  c.owner = owner;
  c.lease_ms = lease_ms;
  return c;
}

// The idempotency gateway on two nodes: both committers claim the same fresh keys at once,
// in opposite orders. Every key goes to exactly one node, and no batch waits on a deadlock
// (the store takes a batch's keys in one order whatever the order they came in).
TEST_F(PgNodesTest, ProxyKeyBatchesOfTwoNodesClaimEachKeyOnceWithoutDeadlocks) {
  constexpr int kRounds = 20;
  constexpr int kKeys = 10;
  const auto started = std::chrono::steady_clock::now();
  for (int round = 0; round < kRounds; ++round) {
    std::atomic<int> failures{0};
    std::vector<std::map<std::string, bool>> got(2);
    std::vector<std::thread> threads;
    for (int n = 0; n < 2; ++n) {
      threads.emplace_back([&, n] {
        ProxyWriteBatch b;
        for (int k = 0; k < kKeys; ++k) {
          const int i = n == 0 ? k : kKeys - 1 - k;
          b.claims.push_back(proxy_claim("r" + std::to_string(round) + "-" + std::to_string(i),
                                         "node" + std::to_string(n) + "/proxy", 30'000));
        }
        auto r = nodes_[static_cast<std::size_t>(n)]->proxy_write_batch(b);
        if (!r) {
          ++failures;
          return;
        }
        for (std::size_t i = 0; i < r->claims.size(); ++i) {
          if (!r->claims[i]) {
            ++failures;
            continue;
          }
          EXPECT_EQ(r->claims[i]->key.key, b.claims[i].key) << "results in the batch's order";
          got[static_cast<std::size_t>(n)][b.claims[i].key] = r->claims[i]->claimed;
        }
      });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(failures.load(), 0) << "round " << round;
    for (const auto& [key, mine] : got[0]) {
      EXPECT_NE(mine, got[1].at(key)) << key << ": exactly one node claims it";
    }
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10))
      << "deadlocks cost a deadlock_timeout each";
}

// A node dies after its claim: the other node never gets the key, it sees it become unknown
// once the lease ran out; the dead node's answer arriving late is still recorded.
TEST_F(PgNodesTest, ADeadNodesProxyKeyBecomesUnknownNeverClaimedAgain) {
  ProxyWriteBatch first;
  first.claims = {proxy_claim("k", "node0/proxy", 5'000)};
  auto held = nodes_[0]->proxy_write_batch(first).value().claims.at(0).value();
  ASSERT_TRUE(held.claimed);
  ProxyWriteBatch other;
  other.claims = {proxy_claim("k", "node1/proxy", 5'000)};
  auto busy = nodes_[1]->proxy_write_batch(other).value().claims.at(0).value();
  EXPECT_FALSE(busy.claimed);
  EXPECT_EQ(busy.key.state, ProxyKeyState::kClaimed);
  clock_.advance(5'000);
  auto lost = nodes_[1]->proxy_write_batch(other).value().claims.at(0).value();
  EXPECT_FALSE(lost.claimed);
  EXPECT_EQ(lost.key.state, ProxyKeyState::kUnknown);
  EXPECT_EQ(lost.key.owner, "node0/proxy");
  ProxyKeyOutcome late;
  late.id = held.key.id;
  late.owner = "node0/proxy";
  late.to = ProxyKeyOutcome::To::kCompleted;
  late.status = 201;
  late.body = "created";
  late.ttl_ms = 60'000;
  ProxyWriteBatch answer;
  answer.outcomes = {late};
  auto recorded = nodes_[0]->proxy_write_batch(answer).value().outcomes.at(0);
  ASSERT_TRUE(recorded.has_value()) << recorded.error().message;
  EXPECT_EQ(nodes_[1]->proxy_get(held.key.id)->state, ProxyKeyState::kCompleted);
}

TEST_F(PgNodesTest, NodesMigratingAtOnceApplyEachVersionOnce) {
  const std::string schema = PgSchemas::instance().fresh();
  auto a = open_pg_store(schema, clock_, ids_);
  auto b = open_pg_store(schema, clock_, ids_);
  Status ra, rb;
  std::thread ta([&] { ra = a->migrate(); });
  std::thread tb([&] { rb = b->migrate(); });
  ta.join();
  tb.join();
  EXPECT_TRUE(ra.has_value()) << ra.error().message;
  EXPECT_TRUE(rb.has_value()) << rb.error().message;
  EXPECT_EQ(a->schema_version().value(), postgres::pg_migrations().back().version);
}

TEST_F(PgNodesTest, DroppedConnectionsAreUnavailableThenReconnected) {
  ASSERT_TRUE(nodes_[0]->get_application(app_.id).has_value());
  ASSERT_TRUE(pg_run(pg_test_url(),
                     "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                     "WHERE application_name = 'hookd-test-" +
                         schema_ + "'"));
  int unavailable = 0, ok = 0;
  for (int i = 0; i < 10; ++i) {
    auto r = nodes_[0]->get_application(app_.id);
    if (r) {
      ++ok;
    } else {
      EXPECT_EQ(r.error().code, ErrorCode::kUnavailable) << r.error().message;
      ++unavailable;
    }
  }
  EXPECT_GE(ok, 9);  // at most the one call that found its connection dead fails
  Application app;
  app.name = "after";
  EXPECT_TRUE(nodes_[1]->create_application(app).has_value());  // writes reconnect at BEGIN
}

}  // namespace
}  // namespace hookd::store::testing
