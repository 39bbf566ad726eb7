// The inbox's batches on PostgreSQL cost one round trip each, however many events they
// carry: the receiver's group commit (inbox_insert_batch: one statement) and the forwarder's
// round (inbox_round: status changes with history, entity state and audit, the release of
// parked dependents and the next claim, one pipeline). Counted with PgStore::round_trips().
// Every item still gets its own result (new / duplicate; updated / lease lost).
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>

#include "store/postgres_support.hpp"
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

InboxEvent pg_event(const std::string& event_id, std::optional<std::string> entity = {},
                    std::optional<std::int64_t> seq = {}) {
  InboxEvent e;
  e.source = "esign";
  e.event_id = event_id;
  e.entity_key = std::move(entity);
  e.sequence = seq;
  e.payload = "{\"id\":\"" + event_id + "\"}" + std::string("\0\"\\,{}\xff", 7);  // any bytes
  e.headers = {{"webhook-id", event_id}};
  return e;
}

InboxStatusUpdate pg_change(const InboxEvent& e, InboxStatus to) {
  InboxStatusUpdate u;
  u.id = e.id;
  u.lease_owner = e.lease_owner.value_or("");
  u.to = to;
  u.note = std::string(to_string(to));
  u.count_attempt = true;
  return u;
}

class PgInboxRoundTripsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = PgSchemas::instance().fresh();
    store_ = open_pg_store(schema_, clock_, ids_);
    ASSERT_NE(store_, nullptr);
    ASSERT_TRUE(store_->migrate().has_value());
  }

  // The round trips `action` took.
  template <class F>
  std::int64_t round_trips_of(F&& action) {
    const std::int64_t before = store_->round_trips();
    action();
    return store_->round_trips() - before;
  }

  std::map<std::string, InboxEvent> claim_all() {
    InboxClaimRequest req;
    req.lease_owner = "fw";
    std::map<std::string, InboxEvent> out;
    const auto claimed = store_->inbox_claim(req).value();
    for (const auto& e : claimed) out[e.event_id] = e;
    return out;
  }

  // True once one of the store's sessions waits for a lock (bounded wait).
  bool store_waits_for_a_lock() {
    const std::string sql =
        "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = "
        "'hookd-test-" +
        schema_ + "'";
    for (int i = 0; i < 1000; ++i) {
      PGconn* conn = PQconnectdb(pg_test_url().c_str());
      PGresult* res = PQexec(conn, sql.c_str());
      const bool waiting = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) > 0;
      PQclear(res);
      PQfinish(conn);
      if (waiting) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  std::string schema_;
  FakeClock clock_;
  FakeIds ids_;
  std::unique_ptr<postgres::PgStore> store_;
};

TEST_F(PgInboxRoundTripsTest, InsertBatchIsOneRoundTripWithEachEventsOutcome) {
  const auto stored = store_->inbox_insert(pg_event("old")).value();  // also prepares the insert
  std::vector<InboxEvent> batch;
  for (int i = 0; i < 20; ++i) batch.push_back(pg_event("e" + std::to_string(i)));
  batch.push_back(pg_event("old"));  // stored before
  batch.push_back(pg_event("e3"));   // twice in this batch

  Result<std::vector<InboxInsertOutcome>> r;
  EXPECT_EQ(round_trips_of([&] { r = store_->inbox_insert_batch(batch); }), 1);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->size(), batch.size());
  for (int i = 0; i < 20; ++i) {
    const auto& out = (*r)[static_cast<std::size_t>(i)];
    EXPECT_TRUE(out.inserted) << i;
    auto found = store_->inbox_get(out.id);
    ASSERT_TRUE(found.has_value()) << i;
    EXPECT_EQ(found->event_id, "e" + std::to_string(i));
    EXPECT_EQ(found->payload, batch[static_cast<std::size_t>(i)].payload);  // bytes intact
    EXPECT_EQ(found->headers, batch[static_cast<std::size_t>(i)].headers);
    EXPECT_EQ(found->status, InboxStatus::kReceived);
    EXPECT_EQ(store_->inbox_history(out.id)->size(), 1u);  // "received"
  }
  EXPECT_FALSE((*r)[20].inserted);
  EXPECT_EQ((*r)[20].id, stored.id);
  EXPECT_FALSE((*r)[21].inserted);
  EXPECT_EQ((*r)[21].id, (*r)[3].id);
}

// The batch's statement sees the rows committed before it started; a row of the same key
// committed by another transaction while the insert waited for it is still a duplicate,
// reported with that row's id.
TEST_F(PgInboxRoundTripsTest, AKeyCommittedWhileTheInsertWaitedIsADuplicateWithItsId) {
  ASSERT_TRUE(store_->inbox_insert(pg_event("warm-up")).has_value());
  PGconn* other = PQconnectdb(pg_test_url().c_str());
  ASSERT_EQ(PQstatus(other), CONNECTION_OK);
  auto run = [&](const std::string& sql) {
    PGresult* res = PQexec(other, sql.c_str());
    const bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    return ok;
  };
  ASSERT_TRUE(run("SET search_path TO " + schema_));
  ASSERT_TRUE(run("BEGIN"));
  ASSERT_TRUE(
      run("INSERT INTO inbox (id, source, event_id, received_at, status, next_attempt_at, "
          "payload) VALUES ('inb_other', 'esign', 'x', 1, 'received', 1, '\\x00')"));

  Result<std::vector<InboxInsertOutcome>> r;
  std::thread insert([&] { r = store_->inbox_insert_batch({pg_event("x"), pg_event("y")}); });
  const bool waited = store_waits_for_a_lock();  // for the other transaction's row "x"
  EXPECT_TRUE(run("COMMIT"));
  insert.join();
  PQfinish(other);
  EXPECT_TRUE(waited);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_FALSE((*r)[0].inserted);
  EXPECT_EQ((*r)[0].id, "inb_other");
  EXPECT_TRUE((*r)[1].inserted);
}

TEST_F(PgInboxRoundTripsTest, RoundIsOneRoundTripAndKeepsEachUpdatesResult) {
  for (const char* id : {"a", "b", "c", "d"}) store_->inbox_insert(pg_event(id));
  store_->inbox_insert(pg_event("k1", "order-1", 1));
  store_->inbox_insert(pg_event("k2", "order-1", 2));
  auto dependent = pg_event("dep");
  dependent.depends_on = {"a"};
  store_->inbox_insert(dependent);
  auto held = claim_all();  // a, b, c, d, k1 (head of its entity), dep
  ASSERT_EQ(held.size(), 6u);
  auto park = pg_change(held["dep"], InboxStatus::kParked);
  park.next_attempt_at = clock_.now_ms() + 3'600'000;  // waits for "a"
  ASSERT_TRUE(store_->inbox_update_status(park).has_value());

  auto settled_k1 = pg_change(held["k1"], InboxStatus::kProcessed);
  settled_k1.entity = InboxEntity{"esign", "order-1", 1, "paid", false, 0};
  auto dead = pg_change(held["c"], InboxStatus::kDead);
  dead.audit = AuditEntry{"", 0, "hookd", "inbox.dead", "inbox_event", held["c"].id, "max", {}, {}};
  auto retry = pg_change(held["d"], InboxStatus::kRetry);
  retry.next_attempt_at = clock_.now_ms() + 3'600'000;
  retry.error = "HTTP 503";
  auto lost = pg_change(held["b"], InboxStatus::kProcessed);
  lost.lease_owner = "someone-else";
  InboxRound round;
  round.updates = {pg_change(held["a"], InboxStatus::kProcessed), lost, settled_k1, dead, retry,
                   pg_change(held["a"], InboxStatus::kProcessed)};  // repeated: lease gone
  round.lease_owner = "fw";
  round.claim_limit = 10;

  Result<InboxRoundResult> r;
  EXPECT_EQ(round_trips_of([&] { r = store_->inbox_round(round); }), 1);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->updated.size(), 6u);
  EXPECT_EQ(r->updated[0].value().status, InboxStatus::kProcessed);
  EXPECT_EQ(r->updated[0]->processed_at, clock_.now_ms());
  EXPECT_EQ(r->updated[1].error().code, ErrorCode::kConflict);
  EXPECT_EQ(r->updated[2].value().status, InboxStatus::kProcessed);
  EXPECT_EQ(r->updated[3].value().status, InboxStatus::kDead);
  EXPECT_EQ(r->updated[4].value().status, InboxStatus::kRetry);
  EXPECT_EQ(r->updated[4]->last_error, "HTTP 503");
  EXPECT_EQ(r->updated[4]->attempts, 1);
  EXPECT_EQ(r->updated[5].error().code, ErrorCode::kConflict);

  // What the updates freed is claimed in the same round: k2 (k1 settled) and dep ("a"
  // settled); d waits for its retry time, b is still someone's.
  std::map<std::string, InboxEvent> claimed;
  for (const auto& e : r->claimed) claimed[e.event_id] = e;
  EXPECT_EQ(claimed.size(), 2u);
  EXPECT_TRUE(claimed.contains("k2"));
  EXPECT_TRUE(claimed.contains("dep"));
  EXPECT_EQ(store_->inbox_get(held["b"].id)->status, InboxStatus::kProcessing);

  // The rows written with each successful update, none for the failed ones.
  EXPECT_EQ(store_->inbox_history(held["a"].id)->size(), 2u);  // received, processed
  EXPECT_EQ(store_->inbox_history(held["b"].id)->size(), 1u);  // received
  EXPECT_EQ(store_->inbox_entity("esign", "order-1")->state, "paid");
  AuditFilter filter;
  filter.action = "inbox.dead";
  auto audit = store_->list_audit(filter, PageRequest{}).value().data;
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].target_id, held["c"].id);
}

TEST_F(PgInboxRoundTripsTest, AnEntityUpdatedTwiceInOneRoundKeepsItsLastState) {
  store_->inbox_insert(pg_event("x"));
  store_->inbox_insert(pg_event("y"));
  auto held = claim_all();
  auto first = pg_change(held["x"], InboxStatus::kProcessed);
  first.entity = InboxEntity{"esign", "order-9", 1, "created", false, 0};
  auto second = pg_change(held["y"], InboxStatus::kProcessed);
  second.entity = InboxEntity{"esign", "order-9", 2, "paid", true, 0};
  auto r = store_->inbox_update_status_batch({first, second});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE((*r)[0].has_value());
  EXPECT_TRUE((*r)[1].has_value());
  auto entity = store_->inbox_entity("esign", "order-9").value();
  EXPECT_EQ(entity.last_sequence, 2);
  EXPECT_EQ(entity.state, "paid");
  EXPECT_TRUE(entity.terminal);
}

// A restarted server: the first statement on a pooled connection finds it dead. The batch
// is sent again on a fresh session (nothing reached the server), so the caller sees no error.
TEST_F(PgInboxRoundTripsTest, BatchesAreSentAgainWhenTheSessionWasDropped) {
  ASSERT_TRUE(store_->inbox_insert(pg_event("a")).has_value());
  const std::string drop =
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = "
      "'hookd-test-" +
      schema_ + "'";
  ASSERT_TRUE(pg_run(pg_test_url(), drop));
  auto inserted = store_->inbox_insert_batch({pg_event("b")});
  ASSERT_TRUE(inserted.has_value()) << inserted.error().message;
  EXPECT_TRUE((*inserted)[0].inserted);

  ASSERT_TRUE(pg_run(pg_test_url(), drop));
  InboxRound round;
  round.lease_owner = "fw";
  round.claim_limit = 10;
  auto r = store_->inbox_round(round);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->claimed.size(), 2u);
}

}  // namespace
}  // namespace hookd::store::testing
