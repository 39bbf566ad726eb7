// The outbound feed's commit-order cursor end to end (issue 15): two hookd processes on one
// PostgreSQL database publish to one endpoint from four threads at once while a reader pages
// that endpoint's feed with the endpoint's own feed token, alternating between the nodes, and
// keeps its iterator from page to page. A cursor on anything minted before commit (the
// message id, a sequence) skips the rows of a slower transaction that commit behind it: the
// reader would then miss acknowledged messages. Checked: the reader sees every acknowledged
// message exactly once, and in the same order as a fresh walk after the load (the order of
// the feed is fixed once a row is visible). Store-level version with a forced slow
// transaction: tests/store/postgres_feed_test.cpp. Removing the xmin bound from the page query
// (src/store/postgres/pg_feed.cpp) makes this test fail: 5-12 of 600 skipped, 5 runs of 5.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "e2e/api_client.hpp"
#include "e2e/hookd_process.hpp"
#include "e2e/http_call.hpp"
#include "e2e/pg_support.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using hookd::testing::TestReceiver;

constexpr int kFeedNodes = 2;
constexpr int kPublishersPerNode = 2;
constexpr int kPerPublisher = 150;
constexpr int kTotal = kFeedNodes * kPublishersPerNode * kPerPublisher;

// One walk of the feed: the ids in the order read, and how many pages were read while
// publishing was still going on.
struct Walk {
  std::vector<std::string> ids;
  int pages_during_load = 0;
  std::string error;
};

// Pages /api/v1/hookd/feed/<endpoint> from the start, alternating between the nodes, until
// `finished()` is true and a page says done with nothing in it (bounded by `within`).
template <class Finished>
Walk walk_feed(const std::array<std::unique_ptr<HookdProcess>, kFeedNodes>& nodes,
               const std::string& endpoint_id, const std::string& token, Finished finished,
               std::chrono::milliseconds within) {
  Walk walk;
  std::string iterator;
  const auto deadline = std::chrono::steady_clock::now() + within;
  for (int page = 0; std::chrono::steady_clock::now() < deadline; ++page) {
    const bool load_over = finished();
    std::string path = concat({"/api/v1/hookd/feed/", endpoint_id, "?limit=37"});
    if (!iterator.empty()) path += concat({"&iterator=", iterator});
    const auto reply =
        http_get(nodes[page % kFeedNodes]->url(path), {{"Authorization", "Bearer " + token}});
    if (reply.status != 200) {
      walk.error = concat({"GET ", path, ": ", std::to_string(reply.status), " ", reply.body});
      return walk;
    }
    const auto body = reply.json();
    for (const auto& item : body["data"]) walk.ids.push_back(item.value("id", ""));
    if (!load_over) ++walk.pages_during_load;
    iterator = body.value("iterator", iterator);
    if (load_over && body.value("done", false) && body["data"].empty()) return walk;
    if (body["data"].empty()) std::this_thread::sleep_for(5ms);
  }
  walk.error = "the walk did not reach done in time";
  return walk;
}

TEST(PgFeedE2E, TwoNodesPublishingConcurrentlyNeverLetTheCursorSkipARow) {
  PgTestDatabase db;
  ASSERT_TRUE(db.ok()) << "no PostgreSQL test cluster (HOOKD_PG_URL / HOOKD_PG_URL_FILE)";
  TestReceiver receiver;
  receiver.start();
  std::array<std::unique_ptr<HookdProcess>, kFeedNodes> nodes;
  for (int i = 0; i < kFeedNodes; ++i) {
    nodes[i] = std::make_unique<HookdProcess>();
    nodes[i]->use_database(db.url());
    nodes[i]->set_env("HOOKD_NODE_ID", concat({"feed", std::to_string(i)}));
    ASSERT_TRUE(nodes[i]->start()) << nodes[i]->last_error();
  }
  ApiClient api(*nodes[0]);
  const std::string app = api.create_app("feed-e2e");
  const std::string endpoint = api.create_endpoint(app, receiver.url("/hook"));
  const auto token_reply =
      nodes[1]->get(concat({"/api/v1/hookd/app/", app, "/endpoint/", endpoint, "/feed-token"}));
  ASSERT_EQ(token_reply.status, 200) << token_reply.body;
  const std::string token = token_reply.json().value("token", "");
  ASSERT_FALSE(token.empty());

  std::mutex acked_mu;
  std::set<std::string> acked;
  std::atomic<int> refused{0};
  std::atomic<int> publishers_left{kFeedNodes * kPublishersPerNode};
  std::vector<std::thread> publishers;
  for (int p = 0; p < kFeedNodes * kPublishersPerNode; ++p) {
    publishers.emplace_back([&, p] {
      ApiClient node_api(*nodes[p % kFeedNodes]);
      for (int n = 0; n < kPerPublisher; ++n) {
        const auto reply =
            node_api.publish(app, "feed.test", nlohmann::json{{"publisher", p}, {"n", n}});
        if (reply.status != 202) {
          ++refused;
          continue;
        }
        std::lock_guard lock(acked_mu);
        acked.insert(reply.json().value("id", ""));
      }
      --publishers_left;
    });
  }
  Walk during = walk_feed(
      nodes, endpoint, token, [&] { return publishers_left == 0; }, 120s);
  for (auto& t : publishers) t.join();
  ASSERT_TRUE(during.error.empty()) << during.error;
  ASSERT_EQ(refused, 0);
  ASSERT_EQ(acked.size(), static_cast<std::size_t>(kTotal));
  EXPECT_GT(during.pages_during_load, 0);  // the reader raced the writers

  std::map<std::string, int> times_read;
  for (const auto& id : during.ids) ++times_read[id];
  int duplicates = 0, unknown = 0;
  for (const auto& [id, n] : times_read) {
    duplicates += n - 1;
    unknown += acked.contains(id) ? 0 : 1;
  }
  int skipped = 0;
  for (const auto& id : acked) skipped += times_read.contains(id) ? 0 : 1;
  EXPECT_EQ(skipped, 0) << "acknowledged messages the cursor walked past";
  EXPECT_EQ(duplicates, 0);
  EXPECT_EQ(unknown, 0);

  // The order read under load is the feed's order: a fresh walk gives the same sequence.
  Walk after = walk_feed(
      nodes, endpoint, token, [] { return true; }, 60s);
  ASSERT_TRUE(after.error.empty()) << after.error;
  EXPECT_EQ(after.ids, during.ids);
  EXPECT_EQ(after.pages_during_load, 0);
}

}  // namespace
}  // namespace hookd::e2e
