// `hookd reconcile list|runs|show|resolve` on a real SQLite store (in memory, fake clock and
// ids): differences and runs as a table and as JSON, filters, a person's resolve applied once
// with its audit entry (A30), and the refusals that change nothing.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/store_factory.hpp"
#include "cli/exit_codes.hpp"
#include "cli/reconcile_command.hpp"
#include "store/store_contract.hpp"

namespace hookd::cli {
namespace {

struct ReconcileOutcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class ReconcileCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config::DatabaseConfig database;
    database.url = ":memory:";
    auto opened = app::open_store(database, clock_, ids_);
    ASSERT_TRUE(opened.has_value()) << opened.error().message;
    store_ = std::move(*opened);
    ASSERT_TRUE(store_->migrate().has_value());
    config::SourceConfig source;
    source.name = "esign";
    source.terminal_states = {"signed", "voided"};
    source.scheme = config::Scheme::kNone;
    source.event_id = "/id";
    source.forward.url = "http://127.0.0.1:9/app";
    source.forward.secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    source.reconcile = config::ReconcileConfig{};  // no feed, no status URL: runs read nothing
    source.reconcile->interval = std::chrono::seconds(0);
    config_.sources.push_back(source);
  }

  // A missing feed item recorded without repair (repair = "manual"), and its run.
  store::Difference manual_missing(const std::string& event_id) {
    auto start = store_->reconcile_begin("esign", "n/reconcile", 60'000, "cli");
    EXPECT_TRUE(start.has_value());
    store::ReconcileItem item;
    item.event.source = "esign";
    item.event.event_id = event_id;
    item.event.headers = {{"content-type", "application/json"}};
    item.event.payload = R"({"id":")" + event_id + "\"}";
    item.difference.kind = store::DifferenceKind::kMissing;
    item.difference.subject = event_id;
    item.difference.event_id = event_id;
    item.difference.local_state = "absent";
    item.difference.detail = "never received";
    item.difference.evidence.request = "GET http://127.0.0.1:9/feed";
    store::ReconcilePage page;
    page.source = "esign";
    page.run_id = start->run.id;
    page.lease_owner = "n/reconcile";
    page.items = {item};
    page.repair = false;
    auto applied = store_->reconcile_apply_page(page);
    EXPECT_TRUE(applied.has_value() && applied->recorded.size() == 1);
    EXPECT_TRUE(store_->reconcile_finish(start->run.id, "n/reconcile", std::nullopt).has_value());
    return applied->recorded.at(0);
  }

  store::Difference mismatch(const std::string& entity) {
    store::DifferenceFinding f;
    f.difference.source = "esign";
    f.difference.kind = store::DifferenceKind::kStateMismatch;
    f.difference.subject = entity + "\nsigned";
    f.difference.entity_key = entity;
    f.difference.local_state = "pending";
    f.difference.remote_state = "signed";
    f.difference.detail = "the provider says signed";
    auto r = store_->reconcile_record({f});
    EXPECT_TRUE(r.has_value() && r->size() == 1);
    return r->at(0);
  }

  ReconcileOutcome run(std::vector<std::string> words) {
    CLI::App app;
    ReconcileArgs args;
    add_reconcile_command(app, args);
    std::vector<std::string> argv_words = {"hookd", "reconcile"};
    argv_words.insert(argv_words.end(), words.begin(), words.end());
    std::vector<char*> argv;
    for (auto& w : argv_words) argv.push_back(w.data());
    ReconcileOutcome o;
    try {
      app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError&) {
      o.exit_code = kExitUsage;
      return o;
    }
    std::ostringstream out, err;
    o.exit_code = run_reconcile_on(*store_, config_, clock_, args, out, err);
    o.out = out.str();
    o.err = err.str();
    return o;
  }

  store::testing::FakeClock clock_;
  store::testing::FakeIds ids_;
  std::unique_ptr<store::Store> store_;
  config::Config config_;
};

TEST_F(ReconcileCommandTest, ListsDifferencesAndRunsAsATableAndAsJson) {
  const auto missing = manual_missing("evt-1");
  clock_.advance(1);
  const auto wrong = mismatch("contract-9");
  const auto table = run({"list"});
  ASSERT_EQ(table.exit_code, kExitOk) << table.err;
  EXPECT_NE(table.out.find(missing.id + "\tesign\tmissing\topen\tevt-1\tabsent"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("contract-9 signed\tpending\tsigned"), std::string::npos) << table.out;
  const auto json = run({"list", "--kind", "state_mismatch", "--json"});
  ASSERT_EQ(json.exit_code, kExitOk) << json.err;
  const auto rows = nlohmann::json::parse(json.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["id"], wrong.id);
  EXPECT_EQ(run({"list", "--state", "repaired", "--json"}).out, "[]\n");
  const auto runs = run({"runs", "--json"});
  ASSERT_EQ(runs.exit_code, kExitOk) << runs.err;
  const auto run_rows = nlohmann::json::parse(runs.out);
  ASSERT_EQ(run_rows.size(), 1u);
  EXPECT_EQ(run_rows[0]["trigger"], "cli");
  EXPECT_EQ(run({"list", "--state", "closed"}).exit_code, kExitUsage);
  EXPECT_EQ(run({"list", "--kind", "lost"}).exit_code, kExitUsage);
}

TEST_F(ReconcileCommandTest, ARepairInsertsTheKeptEventOnceAndIsAudited) {  // A30
  const auto missing = manual_missing("evt-2");
  EXPECT_FALSE(store_->inbox_find("esign", "evt-2").has_value());
  const auto repaired =
      run({"resolve", missing.id, "--action", "repair", "--reason", "checked", "--actor", "alice"});
  ASSERT_EQ(repaired.exit_code, kExitOk) << repaired.err;
  EXPECT_EQ(nlohmann::json::parse(repaired.out)["state"], "repaired");
  EXPECT_TRUE(store_->inbox_find("esign", "evt-2").has_value());
  // Not open any more: refused, nothing inserted twice.
  const auto again = run({"resolve", missing.id, "--action", "repair", "--reason", "again"});
  EXPECT_EQ(again.exit_code, kExitInvalid);
  EXPECT_NE(again.err.find("nothing was changed"), std::string::npos) << again.err;
  const auto shown = run({"show", missing.id});
  ASSERT_EQ(shown.exit_code, kExitOk) << shown.err;
  const auto j = nlohmann::json::parse(shown.out);
  ASSERT_EQ(j["actions"].size(), 1u);
  EXPECT_EQ(j["actions"][0]["by"], "alice");
  store::AuditFilter audit;
  audit.target_id = missing.id;
  auto entries = store_->list_audit(audit, store::PageRequest{});
  ASSERT_TRUE(entries.has_value());
  ASSERT_EQ(entries->data.size(), 1u);
  EXPECT_EQ(entries->data[0].action, "reconcile.difference.resolve");  // as through the API
  EXPECT_EQ(entries->data[0].actor, "alice");
  EXPECT_EQ(entries->data[0].reason, "checked");
}

TEST_F(ReconcileCommandTest, CorrectStateSetsTheEntityTerminalWhenTheSourceSaysSo) {
  const auto wrong = mismatch("contract-7");
  EXPECT_EQ(run({"resolve", wrong.id, "--action", "correct_state", "--reason", "r"}).exit_code,
            kExitUsage);  // no --state
  EXPECT_EQ(
      run({"resolve", wrong.id, "--action", "ignore", "--state", "x", "--reason", "r"}).exit_code,
      kExitUsage);
  EXPECT_EQ(run({"resolve", wrong.id, "--action", "release", "--reason", "r"}).exit_code,
            kExitUsage);
  EXPECT_EQ(run({"resolve", wrong.id, "--action", "ignore"}).exit_code, kExitUsage);  // reason
  EXPECT_EQ(store_->reconcile_get_difference(wrong.id)->state, store::DifferenceState::kOpen);
  const auto fixed = run({"resolve", wrong.id, "--action", "correct_state", "--state", "signed",
                          "--reason", "provider confirmed"});
  ASSERT_EQ(fixed.exit_code, kExitOk) << fixed.err;
  const auto entity = store_->inbox_entity("esign", "contract-7");
  ASSERT_TRUE(entity.has_value());
  EXPECT_EQ(entity->state, "signed");
  EXPECT_TRUE(entity->terminal);
  EXPECT_EQ(store_->reconcile_get_difference(wrong.id)->state, store::DifferenceState::kResolved);
  EXPECT_EQ(run({"show", "rcd_unknown"}).exit_code, kExitInvalid);
}

TEST_F(ReconcileCommandTest, RunTakesTheSourcesLeaseAndClosesTheRun) {
  const auto ran = run({"run", "esign", "--json"});
  ASSERT_EQ(ran.exit_code, kExitOk) << ran.err;
  const auto closed = nlohmann::json::parse(ran.out);
  EXPECT_EQ(closed["state"], "finished") << ran.out;
  EXPECT_EQ(closed["trigger"], "cli");
  EXPECT_EQ(closed["itemsRead"], 0);
  EXPECT_EQ(run({"run", "unknown"}).exit_code, kExitUsage);
  // Another node holds the lease: refused, no second run opened.
  ASSERT_TRUE(store_->reconcile_begin("esign", "node-b/reconcile", 60'000, "api").has_value());
  const auto busy = run({"run", "esign"});
  EXPECT_EQ(busy.exit_code, kExitInvalid) << busy.out;
  const auto runs = store_->reconcile_list_runs(std::string("esign"), store::PageRequest{});
  ASSERT_TRUE(runs.has_value());
  EXPECT_EQ(runs->data.size(), 2u);  // the CLI's (closed) and node-b's (open)
}

}  // namespace
}  // namespace hookd::cli
