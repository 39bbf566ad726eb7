// Atomicity under faults, SQLite backend: for every statement N of an operation (publish,
// batch publish, record attempt, DLQ replay, inbox batch insert, the idempotency gateway's
// batch and resolution, the reconciler's page, findings and action), make statement N fail — or
// "crash" the process right before it (fork + _exit, then reopen the file) — and check the database
// is then exactly the state before the operation, never half-done; and that the operation run to
// the end leaves exactly the state after.
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/sqlite/sqlite_store.hpp"
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using sqlite::FaultInjector;
using sqlite::SqliteStore;

// Counts statements; when armed, fails (or exits the process at) statement number `at`.
class StatementFaults final : public FaultInjector {
 public:
  enum class Mode { kCount, kFail, kCrash };
  void arm(Mode mode, int at) {
    mode_ = mode;
    at_ = at;
    seen_ = 0;
  }
  int seen() const { return seen_; }
  // A relaxed write's PRAGMA synchronous switches are not part of its transaction (a failing
  // one only makes that commit durable), so they are not counted.
  Status before_statement(std::string_view sql) override {
    if (sql.starts_with("PRAGMA")) return {};
    ++seen_;
    if (mode_ == Mode::kCount || seen_ != at_) return {};
    if (mode_ == Mode::kCrash) ::_exit(0);  // as kill -9: no commit, no cleanup
    return fail(ErrorCode::kUnavailable, "injected fault");
  }

 private:
  Mode mode_ = Mode::kCount;
  int at_ = 0;
  int seen_ = 0;
};

// Every row of every table, as text: equal snapshots mean equal databases.
std::string snapshot(const std::string& path) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  std::string out;
  std::vector<std::string> tables;
  sqlite3_exec(
      db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
      [](void* v, int, char** cols, char**) {
        static_cast<std::vector<std::string>*>(v)->push_back(cols[0]);
        return 0;
      },
      &tables, nullptr);
  for (const auto& t : tables) {
    out += "## " + t + "\n";
    sqlite3_exec(
        db, ("SELECT * FROM " + t + " ORDER BY 1").c_str(),
        [](void* v, int n, char** cols, char**) {
          auto* s = static_cast<std::string*>(v);
          for (int i = 0; i < n; ++i)
            *s += (cols[i] != nullptr ? cols[i] : "NULL") + std::string("|");
          *s += "\n";
          return 0;
        },
        &out, nullptr);
  }
  sqlite3_close(db);
  return out;
}

struct Ids {
  std::string app, plain_ep, leased, dead;
  std::string proxy_held, proxy_unknown;  // a claimed and an unknown idempotency gateway key
  std::string run, manual;  // a reconcile run of "src" holding its lease; an open difference
};

ReconcileItem feed_item(const std::string& event_id) {
  ReconcileItem item;
  item.event.source = "src";
  item.event.event_id = event_id;
  item.event.payload = std::string("{\"id\":\"\x00\xff", 9) + event_id + "\"}";
  item.difference.detail = "missing " + event_id;
  item.difference.evidence.request = "GET http://127.0.0.1:9/feed";
  item.difference.evidence.excerpt = "[...]";
  return item;
}

ReconcilePage feed_page(const Ids& ids, std::vector<ReconcileItem> items, bool repair) {
  ReconcilePage p;
  p.source = "src";
  p.run_id = ids.run;
  p.lease_owner = "node/reconcile";
  p.items = std::move(items);
  p.repair = repair;
  p.next_cursor = "c-" + std::to_string(p.items.size());
  p.watermark_at = 1'700'000'000'500;
  p.lease_ms = 600'000;
  return p;
}

ProxyClaim proxy_claim(const std::string& key, const std::string& owner) {
  ProxyClaim c;
  c.proxy = "orders";
  c.key = key;
  c.fingerprint = "fp";
  c.owner = owner;
  c.lease_ms = 60'000;
  return c;
}

struct Scenario {
  std::string name;
  std::function<bool(Store&, const Ids&)> op;  // true when the operation succeeded
};

void PrintTo(const Scenario& s, std::ostream* os) { *os << s.name; }

class FaultTest : public ::testing::TestWithParam<Scenario> {
 protected:
  std::unique_ptr<Store> open_store() {
    sqlite::SqliteOptions opts;
    opts.path = path_;
    opts.readers = 1;
    opts.faults = faults_;
    auto r = SqliteStore::open(opts, clock_, ids_);
    EXPECT_TRUE(r.has_value());
    return r ? std::move(*r) : nullptr;
  }

  // A fresh database with apps, endpoints (one FIFO), messages, a leased delivery and a
  // dead one. Deterministic: same ids and times every time.
  Ids build() {
    std::filesystem::remove_all(dir_.path());
    std::filesystem::create_directories(dir_.path());
    clock_.set(1'700'000'000'000);
    ids_.reset(0);
    faults_->arm(StatementFaults::Mode::kCount, 0);
    auto store = open_store();
    EXPECT_TRUE(store->migrate().has_value());
    Ids ids;
    Application app;
    app.name = "a";
    ids.app = store->create_application(app)->id;
    Endpoint ep;
    ep.app_id = ids.app;
    ep.url = "https://r.example/";
    ep.secrets.current = "whsec_x";
    ids.plain_ep = store->create_endpoint(ep)->id;
    ep.fifo = true;
    store->create_endpoint(ep);
    NewMessage m;
    m.app_id = ids.app;
    m.event_type = "e";
    m.payload = "{}";
    m.ordering_key = "k";
    store->publish(m);
    store->publish(m);
    auto claimed = store->claim_due(ClaimRequest{"w1", 30'000, 100}).value();
    EXPECT_EQ(claimed.size(), 3u);  // 2 plain + the FIFO head
    AttemptReport dead;
    dead.delivery_id = claimed.at(0).id;
    dead.lease_owner = "w1";
    dead.next = AttemptReport::Next::kDead;
    EXPECT_TRUE(store->record_attempt(dead).has_value());
    ids.dead = claimed.at(0).id;
    ids.leased = claimed.at(1).id;
    ProxyWriteBatch keys;
    keys.claims = {proxy_claim("held", "node/proxy"), proxy_claim("lost", "old/proxy")};
    auto held = store->proxy_write_batch(keys).value();
    ids.proxy_held = held.claims.at(0)->key.id;
    ids.proxy_unknown = held.claims.at(1)->key.id;
    EXPECT_EQ(store->proxy_orphan_owner("old/proxy").value(), 1);
    InboxEvent have;
    have.source = "src";
    have.event_id = "have";
    have.payload = "{}";
    EXPECT_TRUE(store->inbox_insert(have).has_value());
    ids.run = store->reconcile_begin("src", "node/reconcile", 600'000, "api").value().run.id;
    ids.manual = store->reconcile_apply_page(feed_page(ids, {feed_item("m1")}, false))
                     .value()
                     .recorded.at(0)
                     .id;
    clock_.advance(1000);
    return ids;
  }

  TempDir dir_;
  std::string path_ = (dir_.path() / "hookd.db").string();
  FakeClock clock_;
  FakeIds ids_;
  std::shared_ptr<StatementFaults> faults_ = std::make_shared<StatementFaults>();
};

TEST_P(FaultTest, FailingAnyStatementLeavesExactlyBeforeOrAfter) {
  const auto& scenario = GetParam();
  Ids ids = build();
  const std::string before = snapshot(path_);
  const auto id_counter = ids_.counter();
  int statements = 0;
  {
    auto store = open_store();
    faults_->arm(StatementFaults::Mode::kCount, 0);
    ASSERT_TRUE(scenario.op(*store, ids));
    statements = faults_->seen();
  }
  const std::string after = snapshot(path_);
  ASSERT_NE(before, after);
  ASSERT_GT(statements, 2);

  for (int n = 1; n <= statements; ++n) {
    SCOPED_TRACE("failing statement " + std::to_string(n));
    ids = build();
    auto store = open_store();
    faults_->arm(StatementFaults::Mode::kFail, n);
    EXPECT_FALSE(scenario.op(*store, ids));
    EXPECT_EQ(snapshot(path_), before);
    // The store is still usable: the same operation then succeeds, with the same result.
    ids_.reset(id_counter);
    faults_->arm(StatementFaults::Mode::kCount, 0);
    EXPECT_TRUE(scenario.op(*store, ids));
    EXPECT_EQ(snapshot(path_), after);
  }
}

TEST_P(FaultTest, CrashBeforeAnyStatementLosesOnlyUncommittedWork) {
  const auto& scenario = GetParam();
  Ids ids = build();
  const std::string before = snapshot(path_);
  int statements = 0;
  {
    auto store = open_store();
    faults_->arm(StatementFaults::Mode::kCount, 0);
    ASSERT_TRUE(scenario.op(*store, ids));
    statements = faults_->seen();
  }
  const std::string after = snapshot(path_);

  // n == statements + 1: the operation commits, then the process dies.
  for (int n = 1; n <= statements + 1; ++n) {
    SCOPED_TRACE("crash before statement " + std::to_string(n));
    ids = build();
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      auto store = open_store();
      faults_->arm(StatementFaults::Mode::kCrash, n);
      const bool ok = store && scenario.op(*store, ids);
      ::_exit(ok ? 0 : 3);  // no destructors: the connection is never closed cleanly
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    // Reopening runs SQLite's recovery; then the file holds exactly one of the two states.
    { auto reopened = open_store(); }
    EXPECT_EQ(snapshot(path_), n <= statements ? before : after);
  }
}

const std::vector<Scenario> kScenarios = {
    {"Publish",
     [](Store& s, const Ids& ids) {
       NewMessage m;
       m.app_id = ids.app;
       m.event_type = "e";
       m.event_id = "evt-new";
       m.payload = "{}";
       m.ordering_key = "k";
       auto r = s.publish(m);
       return r.has_value() && r->deliveries_created == 2;
     }},
    {"BatchPublish",
     [](Store& s, const Ids& ids) {
       std::vector<NewMessage> batch(3);
       for (auto& m : batch) {
         m.app_id = ids.app;
         m.event_type = "e";
         m.payload = "{}";
         m.ordering_key = "k";
       }
       batch[0].event_id = "x";
       batch[1].app_id = "app_missing";  // rejected item: savepoint rolled back
       batch[2].event_id = "x";          // duplicate of item 0
       auto r = s.publish_batch(batch);
       return r.has_value() && r->size() == 3;
     }},
    {"RecordAttempt",
     [](Store& s, const Ids& ids) {
       AttemptReport rep;
       rep.delivery_id = ids.leased;
       rep.lease_owner = "w1";
       rep.attempt.response_status = 503;
       rep.attempt.response_body = "busy";
       rep.next = AttemptReport::Next::kRetry;
       rep.next_attempt_at = 1'700'000'100'000;
       return s.record_attempt(rep).has_value();
     }},
    {"RecordAttemptsBatch",
     [](Store& s, const Ids& ids) {
       std::vector<AttemptReport> reps(2);
       reps[0].delivery_id = "dlv_not_leased";  // lost lease: savepoint rolled back
       reps[0].lease_owner = "w1";
       reps[1].delivery_id = ids.leased;
       reps[1].lease_owner = "w1";
       reps[1].next = AttemptReport::Next::kDelivered;
       auto r = s.record_attempts(reps);
       return r.has_value() && !(*r)[0].has_value() && (*r)[1].has_value();
     }},
    {"DlqReplay",
     [](Store& s, const Ids& ids) {
       return s.replay_dead({ids.dead}, std::nullopt, audit_entry("dlq.replay")).has_value();
     }},
    {"InboxBatchInsert",
     [](Store& s, const Ids&) {
       std::vector<InboxEvent> evs(3);
       for (int i = 0; i < 3; ++i) {
         evs[i].source = "src";
         evs[i].event_id = "e" + std::to_string(i % 2);
         evs[i].payload = "{}";
       }
       return s.inbox_insert_batch(evs).has_value();
     }},
    {"ProxyWriteBatch",
     [](Store& s, const Ids& ids) {
       ProxyWriteBatch b;
       ProxyKeyOutcome done;
       done.id = ids.proxy_held;
       done.owner = "node/proxy";
       done.status = 201;
       done.headers = {{"x-a", "1"}, {"x-a", "2"}};
       done.body = std::string("a\0b", 3);
       done.ttl_ms = 60'000;
       ProxyKeyOutcome theirs = done;  // another owner's key: that item's kConflict
       theirs.id = ids.proxy_unknown;
       b.outcomes = {done, theirs};
       b.claims = {proxy_claim("new", "node/proxy"), proxy_claim("held", "other/proxy"),
                   proxy_claim("new", "other/proxy")};
       auto r = s.proxy_write_batch(b);
       return r.has_value() && r->outcomes.at(0).has_value() && !r->outcomes.at(1).has_value() &&
              r->claims.at(0).value().claimed && !r->claims.at(1).value().claimed &&
              !r->claims.at(2).value().claimed;
     }},
    {"ProxyResolve",
     [](Store& s, const Ids& ids) {
       ProxyResolution res;
       res.status = 200;
       res.body = "ok";
       res.ttl_ms = 60'000;
       res.resolved_by = "ops";
       res.reason = "checked";
       AuditEntry audit = audit_entry("idempotency.resolve");
       return s.proxy_resolve(ids.proxy_unknown, res, audit).has_value();
     }},
    {"ReconcileApplyPage",
     [](Store& s, const Ids& ids) {
       auto page = feed_page(
           ids, {feed_item("have"), feed_item("m1"), feed_item("n1"), feed_item("n2")}, true);
       auto r = s.reconcile_apply_page(page);
       return r.has_value() && r->recorded.size() == 2 && r->repaired == 2;
     }},
    {"ReconcileRecord",
     [](Store& s, const Ids& ids) {
       std::vector<DifferenceFinding> findings(3);
       findings[0].difference.run_id = ids.run;
       findings[0].difference.source = "src";
       findings[0].difference.kind = DifferenceKind::kStuck;
       findings[0].difference.subject = "entity-1";
       findings[1].difference = findings[0].difference;
       findings[1].difference.kind = DifferenceKind::kStateMismatch;
       findings[1].difference.subject = "entity-1\ndone";
       findings[1].difference.repair_event = feed_item("synth").event;
       findings[1].repair = true;
       findings[2] = findings[0];  // recorded by the first
       auto r = s.reconcile_record(findings);
       return r.has_value() && r->size() == 2;
     }},
    {"ReconcileAct",
     [](Store& s, const Ids& ids) {
       DifferenceAct act;
       act.difference_id = ids.manual;
       act.action = DifferenceAction::kRepair;
       act.by = "ops";
       act.reason = "customer asked";
       act.audit = audit_entry("reconcile.resolve", ids.manual);
       auto r = s.reconcile_act(act);
       return r.has_value() && r->state == DifferenceState::kRepaired;
     }},
};

INSTANTIATE_TEST_SUITE_P(Sqlite, FaultTest, ::testing::ValuesIn(kScenarios),
                         [](const auto& info) { return info.param.name; });

// Fails every statement whose SQL contains `needle`.
class FailMatching final : public FaultInjector {
 public:
  explicit FailMatching(std::string needle) : needle_(std::move(needle)) {}
  Status before_statement(std::string_view sql) override {
    if (armed && sql.find(needle_) != std::string_view::npos) {
      return fail(ErrorCode::kUnavailable, "injected fault");
    }
    return {};
  }
  bool armed = false;

 private:
  std::string needle_;
};

// A migrated file store whose statements matching `needle` fail while `faults->armed`.
struct FaultyStore {
  explicit FaultyStore(std::string needle)
      : faults(std::make_shared<FailMatching>(std::move(needle))) {
    sqlite::SqliteOptions opts;
    opts.path = (dir.path() / "hookd.db").string();
    opts.faults = faults;
    store = SqliteStore::open(opts, clock, ids).value();
    EXPECT_TRUE(store->migrate().has_value());
  }
  TempDir dir;
  FakeClock clock;
  FakeIds ids;
  std::shared_ptr<FailMatching> faults;
  std::unique_ptr<SqliteStore> store;
};

// write_batch runs each part in its own savepoint: a round that fails is undone alone and
// the publishes of the same batch still commit (and are claimable afterwards).
TEST(SqliteWriteBatchFault, AFailingRoundLeavesThePublishesCommitted) {
  FaultyStore f("UPDATE deliveries");
  auto& store = f.store;
  auto& faults = f.faults;
  Application app;
  app.name = "a";
  const auto app_id = store->create_application(app)->id;
  Endpoint ep;
  ep.app_id = app_id;
  ep.url = "https://r.example/";
  ep.secrets.current = "whsec_x";
  ASSERT_TRUE(store->create_endpoint(ep).has_value());

  WriteBatch batch;
  NewMessage m;
  m.app_id = app_id;
  m.event_type = "e";
  m.payload = "{}";
  batch.publishes = {m, m};
  DispatchRound round;
  round.lease_owner = "w1";
  round.claim_limit = 10;  // the claim UPDATEs deliveries: fails
  batch.round = round;
  faults->armed = true;
  auto r = store->write_batch(batch);
  faults->armed = false;
  ASSERT_TRUE(r.published.has_value()) << r.published.error().message;
  EXPECT_EQ(r.published->size(), 2u);
  ASSERT_TRUE(r.round.has_value());
  EXPECT_FALSE(r.round->has_value());
  auto due = store->claim_due(ClaimRequest{"w1", 30'000, 10});
  ASSERT_TRUE(due.has_value());
  EXPECT_EQ(due->size(), 2u);
}

// inbox_write_batch likewise: the forwarder's round failing (its claim UPDATEs the inbox)
// is undone alone; the events of the same batch stay stored and answered.
TEST(SqliteWriteBatchFault, AFailingInboxRoundLeavesTheEventsStored) {
  FaultyStore f("UPDATE inbox");
  auto& store = f.store;
  InboxWriteBatch batch;
  for (const char* id : {"e1", "e2"}) {
    InboxEvent e;
    e.source = "s";
    e.event_id = id;
    e.payload = "{}";
    batch.inserts.push_back(e);
  }
  InboxRound round;
  round.lease_owner = "fw";
  round.claim_limit = 10;
  batch.round = round;
  f.faults->armed = true;
  auto r = store->inbox_write_batch(batch);
  f.faults->armed = false;
  ASSERT_TRUE(r.inserted.has_value()) << r.inserted.error().message;
  ASSERT_EQ(r.inserted->size(), 2u);
  EXPECT_TRUE((*r.inserted)[0].inserted);
  ASSERT_TRUE(r.round.has_value());
  EXPECT_FALSE(r.round->has_value());
  InboxClaimRequest req;
  req.lease_owner = "fw";
  auto due = store->inbox_claim(req);
  ASSERT_TRUE(due.has_value());
  EXPECT_EQ(due->size(), 2u);  // stored, and not left claimed by the undone round
}

// A relaxed write (the forwarder's round) that cannot restore synchronous=FULL afterwards
// keeps its committed result, and no durable write commits until the setting is back.
TEST(SqliteRelaxedWrite, FailingToRestoreFullBlocksDurableWritesUntilRestored) {
  FaultyStore f("PRAGMA synchronous=FULL");
  auto& store = f.store;
  auto& faults = f.faults;
  faults->armed = true;
  auto round = store->inbox_round(InboxRound{});
  EXPECT_TRUE(round.has_value()) << round.error().message;  // committed: the result stands
  Application app;
  app.name = "a";
  auto refused = store->create_application(app);
  ASSERT_FALSE(refused.has_value());  // would have committed without its fsync
  EXPECT_TRUE(store->list_applications(PageRequest{})->data.empty());
  faults->armed = false;
  auto created = store->create_application(app);
  ASSERT_TRUE(created.has_value()) << created.error().message;
  EXPECT_EQ(store->list_applications(PageRequest{})->data.size(), 1u);
}

}  // namespace
}  // namespace hookd::store::testing
