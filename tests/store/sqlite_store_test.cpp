// SQLite-specific behaviour beyond the contract: journal mode and migrations bookkeeping,
// a locked database reported as kUnavailable, and concurrent use from several threads.
#include <sqlite3.h>
#include <sys/resource.h>

#include <csignal>

#include <thread>

#include "store/sqlite/migrations.hpp"
#include "store/sqlite/sqlite_store.hpp"
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using sqlite::SqliteOptions;
using sqlite::SqliteStore;

class SqliteStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<SqliteStore> open(SqliteOptions opts = {}) {
    opts.path = path_;
    auto r = SqliteStore::open(opts, clock_, ids_);
    EXPECT_TRUE(r.has_value()) << r.error().message;
    if (!r) return nullptr;
    EXPECT_TRUE((*r)->migrate().has_value());
    return std::move(*r);
  }
  std::string query_text(const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open(path_.c_str(), &db);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr);
    std::string out;
    if (sqlite3_step(st) == SQLITE_ROW)
      out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
  }
  TempDir dir_;
  std::string path_ = (dir_.path() / "hookd.db").string();
  FakeClock clock_;
  FakeIds ids_;
};

TEST_F(SqliteStoreTest, UsesWalAndRecordsEachMigrationOnce) {
  auto store = open();
  ASSERT_TRUE(store->migrate().has_value());
  store.reset();
  store = open();  // a restart migrates again: still one row per version
  EXPECT_EQ(query_text("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(query_text("SELECT COUNT(*) FROM schema_migrations"),
            std::to_string(sqlite::migrations().size()));
  EXPECT_EQ(store->schema_version().value(), sqlite::migrations().back().version);
}

TEST_F(SqliteStoreTest, ANewDatabaseGivesPurgedPagesBackAnOldOneKeepsThem) {  // retention
  auto store = open();
  EXPECT_EQ(query_text("PRAGMA auto_vacuum"), "2");  // INCREMENTAL, chosen before any table
  for (int i = 0; i < 400; ++i) {
    AuditEntry a = audit_entry("bulk", "t" + std::to_string(i), std::string(2000, 'x'));
    ASSERT_TRUE(store->append_audit(a).has_value());
  }
  const auto pages_before = std::stoll(query_text("PRAGMA page_count"));
  clock_.advance(2);
  PurgeRequest purge;
  purge.kind = RetentionKind::kAudit;
  purge.settled_before = clock_.now_ms();
  purge.limit = 1000;
  ASSERT_EQ(store->purge_batch(purge).value().deleted, 400);
  EXPECT_GT(std::stoll(query_text("PRAGMA freelist_count")), 100);
  std::int64_t reclaimed = 0;
  for (int i = 0; i < 100; ++i) {
    auto step = store->reclaim_space(50);
    ASSERT_TRUE(step.has_value()) << step.error().message;
    reclaimed += *step;
    if (*step < 50) break;
  }
  EXPECT_GT(reclaimed, 100);
  EXPECT_EQ(query_text("PRAGMA freelist_count"), "0");
  EXPECT_LT(std::stoll(query_text("PRAGMA page_count")), pages_before - 100);
  store.reset();
  // A database created before version 12 (auto_vacuum NONE) stays as it is: nothing to give.
  std::filesystem::remove(path_);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE older (x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  store = open();
  EXPECT_EQ(query_text("PRAGMA auto_vacuum"), "0");
  EXPECT_EQ(store->reclaim_space(50).value(), 0);
}

TEST_F(SqliteStoreTest, FreshDatabaseHasVersionZeroUntilMigrated) {
  SqliteOptions opts;
  opts.path = path_;
  auto store = SqliteStore::open(opts, clock_, ids_);
  ASSERT_TRUE(store.has_value());
  EXPECT_EQ((*store)->schema_version().value(), 0);
}

TEST_F(SqliteStoreTest, LockedDatabaseIsUnavailable) {  // storage unavailable -> 503 upstream
  SqliteOptions opts;
  opts.busy_timeout_ms = 50;
  auto store = open(opts);
  auto app = store->create_application(Application{});
  ASSERT_TRUE(app.has_value());
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  NewMessage m;
  m.app_id = app->id;
  m.event_type = "e";
  auto r = store->publish(m);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  EXPECT_TRUE(store->publish(m).has_value());  // and it recovers
}

// The readiness probe is a write: while another connection holds the write lock it fails as
// unavailable (a probe that only read — schema_version — would pass here: the mutation this
// test catches), and it succeeds once the lock is gone.
TEST_F(SqliteStoreTest, ProbeCommitFailsWhileTheStoreCannotWriteAndRecovers) {
  SqliteOptions opts;
  opts.busy_timeout_ms = 50;
  auto store = open(opts);
  ASSERT_TRUE(store->probe_commit().has_value());
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto probed = store->probe_commit();
  ASSERT_FALSE(probed.has_value());
  EXPECT_EQ(probed.error().code, ErrorCode::kUnavailable);
  EXPECT_TRUE(store->schema_version().has_value());  // reads still work meanwhile
  sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(other);
  EXPECT_TRUE(store->probe_commit().has_value());
}

// A full disk at unit level: the process's file size limit set to 1 byte makes every write
// into the WAL fail (EFBIG, SIGXFSZ ignored) while reads work. The probe must fail then — an
// UPDATE setting a value to itself would pass here (SQLite writes no page for an unchanged
// cell: the mutation this test catches) — and succeed once the limit is lifted.
TEST_F(SqliteStoreTest, ProbeCommitFailsOnAFullDiskAndRecovers) {
  auto store = open();
  ASSERT_TRUE(store->probe_commit().has_value());
  auto* previous = std::signal(SIGXFSZ, SIG_IGN);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  rlimit full{1, saved.rlim_max};
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &full), 0);
  auto probed = store->probe_commit();
  auto version = store->schema_version();
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  ASSERT_FALSE(probed.has_value());
  EXPECT_EQ(probed.error().code, ErrorCode::kUnavailable);
  EXPECT_TRUE(version.has_value());  // reads worked all along
  EXPECT_TRUE(store->probe_commit().has_value());
  EXPECT_EQ(query_text("SELECT COUNT(*) FROM schema_migrations WHERE version < 0"), "0");
}

TEST_F(SqliteStoreTest, UnopenablePathIsUnavailable) {
  SqliteOptions opts;
  opts.path = (dir_.path() / "missing-dir" / "x.db").string();
  auto r = SqliteStore::open(opts, clock_, ids_);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
}

// Publishers, dispatchers and readers at once: every message is delivered exactly once
// per endpoint and no call fails.
TEST_F(SqliteStoreTest, ConcurrentPublishClaimAndRead) {
  SqliteOptions opts;
  opts.readers = 2;
  auto store = open(opts);
  Application app;
  app.name = "a";
  const auto app_id = store->create_application(app)->id;
  for (int i = 0; i < 2; ++i) {
    Endpoint ep;
    ep.app_id = app_id;
    ep.url = "https://r.example/";
    ep.secrets.current = "whsec_x";
    ASSERT_TRUE(store->create_endpoint(ep).has_value());
  }
  constexpr int kPublishers = 3, kPerPublisher = 40;
  std::atomic<int> errors{0}, delivered{0}, published_done{0};
  std::vector<std::thread> threads;
  NewMessage base;
  base.app_id = app_id;
  base.event_type = "e";
  for (int p = 0; p < kPublishers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < kPerPublisher; ++i) {
        NewMessage m = base;
        m.ordering_key = std::to_string(p);
        if (!store->publish(m)) ++errors;
        if (!store->list_messages(app_id, MessageFilter{}, PageRequest{})) ++errors;
      }
      ++published_done;
    });
  }
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      const std::string owner = std::to_string(w);
      for (;;) {
        auto batch = store->claim_due(ClaimRequest{owner, 60'000, 16});
        if (!batch) {
          ++errors;
          continue;
        }
        for (const auto& d : *batch) {
          AttemptReport rep;
          rep.delivery_id = d.id;
          rep.lease_owner = owner;
          rep.next = AttemptReport::Next::kDelivered;
          if (store->record_attempt(rep)) {
            ++delivered;
          } else {
            ++errors;
          }
        }
        if (batch->empty() && published_done == kPublishers) {
          if (store->count_deliveries(DeliveryStatus::kPending).value_or(1) == 0) break;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(delivered, kPublishers * kPerPublisher * 2);
  EXPECT_EQ(store->count_deliveries(DeliveryStatus::kDelivered).value(),
            kPublishers * kPerPublisher * 2);
}

}  // namespace
}  // namespace hookd::store::testing
