// A26: three hookd nodes on one PostgreSQL database under publish load; one node is killed
// (kill -9) at random moments and restarted. Every message acknowledged with 202 is
// delivered, FIFO order holds per ordering key, and duplicates are counted and bounded by
// the leases the killed nodes held.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "e2e/api_client.hpp"
#include "e2e/hookd_process.hpp"
#include "e2e/pg_support.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using hookd::testing::TestReceiver;

constexpr int kNodes = 3;
constexpr int kKeys = 8;
constexpr int kMessages = 1000;
constexpr int kMinKills = 6;
constexpr int kClaimBatch = 16;  // [delivery] claim_batch_size below: leases a node holds

std::string node_config() {
  std::string config = default_test_config();
  const std::string anchor = "[delivery]\n";
  config.insert(config.find(anchor) + anchor.size(),
                concat({"claim_batch_size = ", std::to_string(kClaimBatch), "\n"}));
  return config;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Published {
  std::string msg_id;
  std::string key;
  int n = 0;  // position within its key
};

TEST(PgNodesE2E, ThreeNodesWithKillsDeliverEveryAckInFifoOrder) {  // A26
  PgTestDatabase db;
  ASSERT_TRUE(db.ok()) << "no PostgreSQL test cluster (HOOKD_PG_URL / HOOKD_PG_URL_FILE)";
  TestReceiver receiver;
  receiver.start();
  std::array<std::unique_ptr<HookdProcess>, kNodes> nodes;
  for (int i = 0; i < kNodes; ++i) {
    nodes[i] = std::make_unique<HookdProcess>(node_config());
    nodes[i]->use_database(db.url());
    nodes[i]->set_env("HOOKD_NODE_ID", concat({"node", std::to_string(i)}));
    ASSERT_TRUE(nodes[i]->start()) << nodes[i]->last_error();
  }
  ApiClient api(*nodes[0]);
  const std::string app = api.create_app("a26");
  const HttpReply ep =
      nodes[0]->post(concat({"/api/v1/app/", app, "/endpoint"}),
                     nlohmann::json{{"url", receiver.url("/hook")}, {"fifo", true}}.dump());
  ASSERT_EQ(ep.status, 201) << ep.body;

  // The killer: every 300-900 ms one random node dies (kill -9) and comes back.
  std::mutex nodes_mu;
  std::atomic<bool> stop_killing{false};
  std::atomic<int> kills{0};
  std::atomic<int> failed_starts{0};
  std::string start_errors;  // written by the killer, read after join
  std::thread killer([&] {
    std::mt19937 rng(26);
    while (!stop_killing) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300 + rng() % 600));
      if (stop_killing) break;
      const int victim = static_cast<int>(rng() % kNodes);
      std::lock_guard lock(nodes_mu);
      nodes[victim]->kill9();
      ++kills;
      if (!nodes[victim]->start()) {
        ++failed_starts;
        start_errors += nodes[victim]->last_error() + "\n";
      }
    }
  });

  // Publish round-robin over the nodes; a node that is down (no answer) is skipped.
  std::vector<Published> acked;
  std::map<std::string, int> next_n;
  std::map<long, int> statuses;
  for (int i = 0, node = 0;
       (static_cast<int>(acked.size()) < kMessages || kills < kMinKills) && i < kMessages * 50;
       ++i, node = (node + 1) % kNodes) {
    const std::string key = concat({"k", std::to_string(i % kKeys)});
    const int n = next_n[key];
    const std::string body = nlohmann::json{{"eventType", "order.step"},
                                            {"eventId", concat({key, "-", std::to_string(n)})},
                                            {"orderingKey", key},
                                            {"payload", {{"key", key}, {"n", n}}}}
                                 .dump();
    HttpReply reply;
    {
      std::lock_guard lock(nodes_mu);
      if (!nodes[node]->running() || nodes[node]->port() == 0) continue;
      reply = nodes[node]->post(concat({"/api/v1/app/", app, "/msg"}), body);
      // 409: an earlier try was stored though its answer was lost (the node died).
      if (reply.status == 409) {
        reply =
            nodes[node]->get(concat({"/api/v1/app/", app, "/msg/", key, "-", std::to_string(n)}));
        if (reply.status == 200) reply.status = 202;
      }
    }
    ++statuses[reply.status];
    // No answer: unknown outcome; the same event id is published again (dedup), so the
    // key's order stays the publish order.
    if (reply.status != 202) continue;
    acked.push_back({reply.json().value("id", ""), key, n});
    ++next_n[key];
  }
  stop_killing = true;
  killer.join();
  // A restart that failed leaves its node down; every node must be serving for the drain.
  for (auto& node : nodes) {
    if (!node->running() || node->port() == 0) {
      node->kill9();
      EXPECT_TRUE(node->start()) << node->last_error();
    }
  }
  if (failed_starts > 0) {
    std::cout << "[ A26 ] " << failed_starts << " restarts failed:\n" << start_errors << "\n";
  }
  ASSERT_GE(static_cast<int>(acked.size()), kMessages);

  // Every acknowledged message arrives.
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  std::size_t missing = acked.size();
  while (std::chrono::steady_clock::now() < deadline) {
    missing = 0;
    for (const auto& p : acked) missing += receiver.count_for_webhook_id(p.msg_id) == 0 ? 1 : 0;
    if (missing == 0) break;
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_EQ(missing, 0u) << "acknowledged but never delivered";
  if (missing != 0) {
    std::cout << "[ A26 ] open deliveries at " << now_ms() << ":\n"
              << pg_dump_rows(db.url(),
                              "SELECT id, msg_id, status, attempts, next_attempt_at, lease_owner, "
                              "lease_until, ordering_key, sequence, last_error, "
                              "last_response_status FROM deliveries WHERE status <> 'delivered' "
                              "ORDER BY ordering_key, sequence");
    for (int i = 0; i < kNodes; ++i) {
      const std::string log = nodes[i]->stderr_text() + nodes[i]->stdout_text();
      std::cout << "[ A26 ] node" << i << " running=" << nodes[i]->running() << " "
                << nodes[i]->last_exit() << " log tail:\n"
                << log.substr(log.size() > 6000 ? log.size() - 6000 : 0) << "\n";
    }
  }

  // FIFO per key: the positions a key's requests carry never go backwards (a duplicate
  // repeats the latest one; it never reorders).
  std::map<std::string, int> last_n;
  std::size_t order_violations = 0;
  for (const auto& request : receiver.requests()) {
    const auto body = nlohmann::json::parse(request.body, nullptr, false);
    if (!body.is_object()) continue;
    const std::string key = body.value("key", "");
    const int n = body.value("n", -1);
    auto [it, first] = last_n.emplace(key, n);
    if (!first && n < it->second) ++order_violations;
    if (n > it->second) it->second = n;
  }
  EXPECT_EQ(order_violations, 0u);

  // Duplicates: only deliveries whose lease died with a node are sent again.
  const std::size_t requests = receiver.request_count();
  const std::size_t duplicates = requests > acked.size() ? requests - acked.size() : 0;
  const std::size_t bound = static_cast<std::size_t>(kills.load()) * kClaimBatch;
  EXPECT_LE(duplicates, bound) << kills << " kills";
  std::cout << "[ A26 ] " << acked.size() << " acknowledged over " << kNodes << " nodes, " << kills
            << " kills, " << duplicates << " duplicates (bound " << bound << ")\n";
  for (const auto& [status, count] : statuses) {
    EXPECT_TRUE(status == 202 || status == 0 || status == 503) << count << " x " << status;
  }
}

}  // namespace
}  // namespace hookd::e2e
