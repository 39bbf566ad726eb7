// The outbound feed's commit-order cursor on PostgreSQL with several nodes (docs/
// reconciliation.md, "the trap"): two PgStore instances publish concurrently from their own
// threads while a third pages the feed continuously; a slow transaction that took a low
// transaction id (and the lowest message id) before them stays open meanwhile. The reader
// must not page past it while it is open, must see its row once it commits, and the union
// of its pages must be the published set with no gap and no duplicate. A cursor on the
// message id (or on anything minted before commit) fails both checks.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "store/postgres_support.hpp"
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using namespace std::chrono_literals;

// A raw libpq session on the test schema, for a transaction the store does not drive.
class RawSession {
 public:
  explicit RawSession(const std::string& schema) : conn_(PQconnectdb(pg_test_url().c_str())) {
    ok_ = PQstatus(conn_) == CONNECTION_OK && exec("SET search_path TO " + schema);
  }
  ~RawSession() { PQfinish(conn_); }
  RawSession(const RawSession&) = delete;
  RawSession& operator=(const RawSession&) = delete;
  bool ok() const { return ok_; }
  bool exec(const std::string& sql) {
    PGresult* res = PQexec(conn_, sql.c_str());
    const bool good =
        PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
    if (!good) ADD_FAILURE() << sql << ": " << PQerrorMessage(conn_);
    PQclear(res);
    return good;
  }

 private:
  PGconn* conn_;
  bool ok_ = false;
};

class PgFeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = PgSchemas::instance().fresh();
    for (int i = 0; i < 3; ++i) {
      nodes_.push_back(open_pg_store(schema_, clock_, ids_));
      ASSERT_NE(nodes_.back(), nullptr);
    }
    ASSERT_TRUE(nodes_[0]->migrate().has_value());
    Application app;
    app.name = "feed";
    app_ = nodes_[0]->create_application(app).value();
    Endpoint ep;
    ep.app_id = app_.id;
    ep.url = "https://receiver.example/hook";
    ep.secrets.current = "whsec_c2VjcmV0";
    ep_ = nodes_[0]->create_endpoint(ep).value();
  }

  // Out of line: GCC 12 sees a false -Wrestrict in the string assignments once inlined.
  [[gnu::noinline]] NewMessage message() const {
    NewMessage m;
    m.app_id = app_.id;
    m.event_type = "e";
    m.payload = "{}";
    return m;
  }

  std::string schema_;
  FakeClock clock_;
  FakeIds ids_;
  std::vector<std::unique_ptr<postgres::PgStore>> nodes_;  // 0, 1 publish; 2 reads
  Application app_;
  Endpoint ep_;
};

TEST_F(PgFeedTest, ConcurrentPublishersAndASlowTransactionLeaveNoGapAndNoDuplicate) {
  // The slow transaction: the lowest message id, and a transaction id older than every
  // publisher's, held open while they publish.
  const std::string slow_msg = ids_.next("msg");
  const std::string slow_dlv = ids_.next("dlv");
  RawSession slow(schema_);
  ASSERT_TRUE(slow.ok());
  ASSERT_TRUE(slow.exec("BEGIN"));
  ASSERT_TRUE(
      slow.exec("INSERT INTO messages (id, app_id, event_type, payload, created_at) "
                "VALUES ('" +
                slow_msg + "', '" + app_.id + "', 'slow', '{}', 1)"));
  ASSERT_TRUE(
      slow.exec("INSERT INTO deliveries (id, msg_id, endpoint_id, app_id, status, "
                "next_attempt_at, created_at, updated_at) VALUES ('" +
                slow_dlv + "', '" + slow_msg + "', '" + ep_.id + "', '" + app_.id +
                "', 'pending', 1, 1, 1)"));

  std::mutex mu;
  std::set<std::string> published;
  std::vector<std::string> seen;  // in page order, duplicates kept
  std::atomic<int> publishers_running{2};
  std::atomic<int> pages{0};
  std::string iterator;
  bool last_done = true;

  // A failed ASSERT leaves the test early: the jthread's destructor then stops and joins it.
  std::jthread reader([&](const std::stop_token& stop) {
    while (!stop.stop_requested()) {
      auto p = nodes_[2]->feed_page(ep_.id, iterator, 7);
      if (!p) {
        ADD_FAILURE() << p.error().message;
        return;
      }
      ++pages;
      std::lock_guard lock(mu);
      for (const auto& item : p->data) seen.push_back(item.message.id);
      iterator = p->iterator;
      last_done = p->done;
      if (p->data.empty()) std::this_thread::sleep_for(1ms);
    }
  });
  std::vector<std::jthread> publishers;
  for (int n = 0; n < 2; ++n) {
    publishers.emplace_back([&, n] {
      for (int i = 0; i < 60; ++i) {
        std::vector<NewMessage> batch(static_cast<std::size_t>(1 + (i + n) % 4), message());
        auto out = nodes_[n]->publish_batch(batch);
        if (!out) {
          ADD_FAILURE() << out.error().message;
          break;
        }
        std::lock_guard lock(mu);
        for (const auto& o : *out) published.insert(o.message.id);
      }
      --publishers_running;
    });
  }
  for (auto& t : publishers) t.join();
  // Let the reader page a while with every publisher's rows committed and the slow one open.
  const int pages_before = pages.load();
  while (pages.load() < pages_before + 20) std::this_thread::sleep_for(1ms);
  {
    std::lock_guard lock(mu);
    EXPECT_TRUE(seen.empty()) << "the reader paged past an open transaction with a lower id: "
                              << seen.size() << " items read";
    EXPECT_FALSE(last_done) << "committed rows wait behind the open transaction";
  }
  ASSERT_TRUE(slow.exec("COMMIT"));
  published.insert(slow_msg);

  // Drain: until every row is read and a page says done.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  for (;;) {
    {
      std::lock_guard lock(mu);
      if (seen.size() >= published.size() && last_done) break;
    }
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the feed never caught up";
    std::this_thread::sleep_for(2ms);
  }
  reader.request_stop();
  reader.join();

  const std::set<std::string> unique(seen.begin(), seen.end());
  EXPECT_EQ(unique.size(), seen.size()) << "a message was read twice";
  EXPECT_EQ(unique, published) << "a message was skipped (or an unknown one read)";
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.front(), slow_msg) << "the slow transaction's row comes first (lowest xid)";
  EXPECT_GT(pages.load(), 20);
}

// Publishers racing with a reader and no injected delay: the union of the pages is the
// published set, whatever the interleaving of the commits.
TEST_F(PgFeedTest, ReaderPagingDuringConcurrentPublishesSeesEachMessageOnce) {
  std::mutex mu;
  std::set<std::string> published;
  std::vector<std::string> seen;
  std::atomic<bool> publishing{true};
  std::string iterator;
  std::jthread reader([&](const std::stop_token& stop) {
    for (bool drained = false; !drained && !stop.stop_requested();) {
      const bool last_round = !publishing;
      auto p = nodes_[2]->feed_page(ep_.id, iterator, 5);
      ASSERT_TRUE(p.has_value()) << p.error().message;
      for (const auto& item : p->data) seen.push_back(item.message.id);
      iterator = p->iterator;
      drained = last_round && p->done;
    }
  });
  {
    std::vector<std::jthread> publishers;
    for (int n = 0; n < 2; ++n) {
      publishers.emplace_back([&, n] {
        for (int i = 0; i < 150; ++i) {
          auto out = nodes_[n]->publish(message());
          ASSERT_TRUE(out.has_value()) << out.error().message;
          std::lock_guard lock(mu);
          published.insert(out->message.id);
        }
      });
    }
  }
  publishing = false;
  reader.join();
  const std::set<std::string> unique(seen.begin(), seen.end());
  EXPECT_EQ(unique.size(), seen.size());
  EXPECT_EQ(unique, published);
}

}  // namespace
}  // namespace hookd::store::testing
