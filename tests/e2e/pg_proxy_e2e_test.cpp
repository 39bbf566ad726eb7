// The idempotency gateway on two hookd nodes sharing one PostgreSQL database, in front of one
// counting upstream (proxy_helpers.hpp): a key claimed on one node is in progress on the
// other and then replayed there; concurrent same-key requests on both nodes reach the
// upstream once; a node killed while its call is out leaves the key in progress on the other
// node for the claim's lease, then unknown, never sent again; a restarted node turns only its
// own claims unknown (docs/proxy.md).
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <latch>
#include <memory>
#include <thread>
#include <vector>

#include "e2e/pg_support.hpp"
#include "e2e/proxy_helpers.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;

// Node `name` ("a", "b") of the gateway on `db`, not started.
std::unique_ptr<HookdProcess> proxy_node(const PgTestDatabase& db, const std::string& config,
                                         const std::string& name) {
  auto node = std::make_unique<HookdProcess>(config);
  node->use_database(db.url());
  node->set_env("HOOKD_NODE_ID", concat({"node-", name}));
  return node;
}

bool in_progress(const HttpReply& r) {
  return r.status == 409 && type_is(r, "request-in-progress");
}

bool outcome_unknown(const HttpReply& r) {
  return r.status == 409 && type_is(r, "outcome-unknown");
}

// How the answers of one round split up.
struct Tally {
  std::atomic<int> created{0}, replayed{0}, in_progress{0}, other{0};
  void add(const HttpReply& r) {
    if (r.status == 201 && r.header("Idempotent-Replayed")) {
      ++replayed;
    } else if (r.status == 201) {
      ++created;
    } else if (e2e::in_progress(r)) {
      ++in_progress;
    } else {
      ++other;
    }
  }
};

TEST(PgProxyE2E, KeyClaimedOnOneNodeIsInProgressOnTheOtherThenReplayed) {
  PgTestDatabase db;
  ASSERT_TRUE(db.ok()) << "no PostgreSQL test cluster (HOOKD_PG_URL / HOOKD_PG_URL_FILE)";
  CountingUpstream upstream;
  const std::string config = proxy_config(upstream.url(), "5s");
  auto a = proxy_node(db, config, "a");
  auto b = proxy_node(db, config, "b");
  ASSERT_TRUE(a->start()) << a->last_error();
  ASSERT_TRUE(b->start()) << b->last_error();

  HttpReply first;
  std::jthread client([&] { first = proxied(*a, "shared-1", "slow:1500"); });
  ASSERT_TRUE(eventually([&] { return upstream.created("shared-1") == 1; }, 10s, 5ms));
  auto during = proxied(*b, "shared-1", "slow:1500");
  EXPECT_TRUE(in_progress(during)) << during.status << " " << during.body;
  EXPECT_TRUE(during.header("Retry-After").has_value());
  client.join();
  ASSERT_EQ(first.status, 201) << first.body;
  EXPECT_FALSE(first.header("Idempotent-Replayed").has_value());

  auto replay = proxied(*b, "shared-1", "slow:1500");
  EXPECT_EQ(replay.status, 201) << replay.body;
  EXPECT_EQ(replay.header("Idempotent-Replayed").value_or(""), "true");
  EXPECT_EQ(replay.body, first.body);
  EXPECT_EQ(replay.header("X-Contract").value_or(""), first.header("X-Contract").value_or("-"));
  EXPECT_EQ(upstream.created("shared-1"), 1);
  EXPECT_EQ(upstream.requests(), 1u);
}

TEST(PgProxyE2E, ConcurrentSameKeyOnTwoNodesReachesTheUpstreamOnce) {
  PgTestDatabase db;
  ASSERT_TRUE(db.ok()) << "no PostgreSQL test cluster (HOOKD_PG_URL / HOOKD_PG_URL_FILE)";
  CountingUpstream upstream;
  const std::string config = proxy_config(upstream.url());
  std::array<std::unique_ptr<HookdProcess>, 2> nodes{proxy_node(db, config, "a"),
                                                     proxy_node(db, config, "b")};
  for (auto& node : nodes) ASSERT_TRUE(node->start()) << node->last_error();
  constexpr int kPerNode = 6;
  for (int round = 0; round < 10; ++round) {
    const std::string key = concat({"race-", std::to_string(round)});
    Tally tally;
    std::latch go(2 * kPerNode);
    std::vector<std::jthread> clients;
    for (int c = 0; c < 2 * kPerNode; ++c) {
      clients.emplace_back([&, c] {
        go.arrive_and_wait();
        tally.add(proxied(*nodes[c % 2], key, "slow:50"));
      });
    }
    for (auto& t : clients) t.join();
    EXPECT_EQ(upstream.created(key), 1) << "round " << round;
    EXPECT_EQ(tally.created.load(), 1) << "round " << round;
    EXPECT_EQ(tally.other.load(), 0) << "round " << round;
    EXPECT_EQ(tally.created + tally.replayed + tally.in_progress, 2 * kPerNode);
  }
  EXPECT_EQ(upstream.requests(), 10u);
}

// A dies (kill -9) while the upstream works on the key. Its claim's lease is 1 s + 500 ms +
// 5 s = 6.5 s (proxy::Gateway::lease_of): B answers in progress until then, unknown after,
// and never sends it; A restarted agrees, and B's API lists the key as unknown.
TEST(PgProxyE2E, KilledNodesKeyIsInProgressForItsLeaseThenUnknownAndNeverResent) {
  PgTestDatabase db;
  ASSERT_TRUE(db.ok()) << "no PostgreSQL test cluster (HOOKD_PG_URL / HOOKD_PG_URL_FILE)";
  CountingUpstream upstream;
  const std::string config = proxy_config(upstream.url(), "1s");
  auto a = proxy_node(db, config, "a");
  auto b = proxy_node(db, config, "b");
  ASSERT_TRUE(a->start()) << a->last_error();
  ASSERT_TRUE(b->start()) << b->last_error();
  constexpr auto kLease = 6'500ms;

  const auto sent = Steady::now();  // the claim, and so its lease, starts after this
  std::jthread client([&] { proxied(*a, "orphan", "slow:4000", "tenant-a", 3s); });
  ASSERT_TRUE(eventually([&] { return upstream.created("orphan") == 1; }, 10s, 2ms));
  a->kill9();  // well before A's 1 s timeout could record the key as unknown itself
  client.join();

  // While the lease lasts (with 1.5 s to spare) every answer on B is "in progress".
  int polls = 0;
  while (Steady::now() < sent + kLease - 1'500ms) {
    auto r = proxied(*b, "orphan", "slow:4000");
    ASSERT_TRUE(in_progress(r)) << "after " << (Steady::now() - sent) / 1ms << " ms: " << r.status
                                << " " << r.body;
    ++polls;
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_GT(polls, 10);

  // Then unknown (B's next claim of the key or its sweep), not before the lease ran out.
  HttpReply last;
  ASSERT_TRUE(eventually(
      [&] {
        last = proxied(*b, "orphan", "slow:4000");
        if (!outcome_unknown(last)) {
          EXPECT_TRUE(in_progress(last)) << last.status << " " << last.body;
        }
        return outcome_unknown(last);
      },
      30s, 100ms))
      << last.status << " " << last.body;
  EXPECT_GE(Steady::now() - sent, kLease - 200ms) << "unknown before the lease ran out";
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(outcome_unknown(proxied(*b, "orphan", "slow:4000")));

  ASSERT_TRUE(a->start()) << a->last_error();
  for (int i = 0; i < 3; ++i) {
    auto r = proxied(*a, "orphan", "slow:4000");
    EXPECT_TRUE(outcome_unknown(r)) << r.status << " " << r.body;
  }
  auto listed = b->get("/api/v1/hookd/idempotency?state=unknown");
  ASSERT_EQ(listed.status, 200) << listed.body;
  const auto data = listed.json()["data"];
  ASSERT_EQ(data.size(), 1u) << listed.body;
  EXPECT_EQ(data[0].value("key", ""), "orphan");
  EXPECT_EQ(data[0].value("proxy", ""), "esign");
  EXPECT_EQ(data[0].value("state", ""), "unknown");

  EXPECT_EQ(upstream.created("orphan"), 1);
  EXPECT_EQ(upstream.requests(), 1u) << "a request that may have run was sent again";
}

// A restarted before its claim's lease ran out turns its own claim unknown at once (start-up
// orphaning), and only its own: B's claim of another key, out at the same time, completes.
TEST(PgProxyE2E, RestartedNodeOrphansOnlyItsOwnClaims) {
  PgTestDatabase db;
  ASSERT_TRUE(db.ok()) << "no PostgreSQL test cluster (HOOKD_PG_URL / HOOKD_PG_URL_FILE)";
  CountingUpstream upstream;
  const std::string config = proxy_config(upstream.url(), "10s");  // lease 15.5 s
  auto a = proxy_node(db, config, "a");
  auto b = proxy_node(db, config, "b");
  ASSERT_TRUE(a->start()) << a->last_error();
  ASSERT_TRUE(b->start()) << b->last_error();

  HttpReply on_b;
  std::atomic<bool> b_done{false};
  std::jthread b_client([&] {
    on_b = proxied(*b, "b-key", "slow:5000", "tenant-a", 15s);
    b_done = true;
  });
  std::jthread a_client([&] { proxied(*a, "a-key", "slow:2500", "tenant-a", 3s); });
  ASSERT_TRUE(eventually([&] { return upstream.created("a-key") == 1; }, 10s, 2ms));
  a->kill9();
  a_client.join();
  ASSERT_TRUE(eventually([&] { return upstream.created("b-key") == 1; }, 10s, 2ms));
  ASSERT_TRUE(a->start()) << a->last_error();
  EXPECT_NE(a->stderr_text().find("proxy.orphaned_keys_unknown"), std::string::npos);

  auto a_key = proxied(*b, "a-key", "slow:2500");
  EXPECT_TRUE(outcome_unknown(a_key)) << a_key.status << " " << a_key.body;
  auto b_key = proxied(*a, "b-key", "slow:5000");
  ASSERT_FALSE(b_done) << "B's call ended before A was back: the test cannot tell";
  EXPECT_TRUE(in_progress(b_key)) << "A's restart took B's claim: " << b_key.status << " "
                                  << b_key.body;
  b_client.join();
  EXPECT_EQ(on_b.status, 201) << on_b.body;
  auto replay = proxied(*a, "b-key", "slow:5000");
  EXPECT_EQ(replay.status, 201) << replay.body;
  EXPECT_EQ(replay.header("Idempotent-Replayed").value_or(""), "true");
  EXPECT_EQ(replay.body, on_b.body);
  EXPECT_EQ(upstream.created("a-key"), 1);
  EXPECT_EQ(upstream.created("b-key"), 1);
  EXPECT_EQ(upstream.requests(), 2u);
}

}  // namespace
}  // namespace hookd::e2e
