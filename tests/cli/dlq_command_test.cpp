// `hookd dlq list|replay|discard` on a real SQLite store (in memory, fake clock and ids); its
// flags are in dlq_flags_test.cpp. Supports A04 (dead letters visible through the CLI) and A05
// (a person replays one; reason and before/after in the audit log).
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/store_factory.hpp"
#include "cli/dlq_command.hpp"
#include "cli/exit_codes.hpp"
#include "store/store_contract.hpp"

namespace hookd::cli {
namespace {

using store::AttemptReport;
using store::DeliveryStatus;

struct DlqOutcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class DlqCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config::DatabaseConfig database;
    database.url = ":memory:";
    auto opened = app::open_store(database, clock_, ids_);
    ASSERT_TRUE(opened.has_value()) << opened.error().message;
    store_ = std::move(*opened);
    ASSERT_TRUE(store_->migrate().has_value());
    app_ = make_app("shop", "shop-uid");
    endpoint_ = make_endpoint(app_.id);
  }

  store::Application make_app(const std::string& name, std::optional<std::string> uid = {}) {
    store::Application app;
    app.name = name;
    app.uid = std::move(uid);
    auto created = store_->create_application(app);
    EXPECT_TRUE(created.has_value()) << created.error().message;
    return created.value_or(store::Application{});
  }

  store::Endpoint make_endpoint(const std::string& app_id) {
    store::Endpoint ep;
    ep.app_id = app_id;
    ep.url = "https://receiver.example/hook";
    ep.secrets.current = "whsec_c2VjcmV0";
    auto created = store_->create_endpoint(ep);
    EXPECT_TRUE(created.has_value()) << created.error().message;
    return created.value_or(store::Endpoint{});
  }

  // Publishes one message to `app_id` and returns its (pending) delivery.
  store::Delivery pending(const std::string& app_id) {
    store::NewMessage msg;
    msg.app_id = app_id;
    msg.event_type = "order.paid";
    msg.payload = R"({"id":1})";
    auto published = store_->publish(msg);
    EXPECT_TRUE(published.has_value() && published->deliveries_created == 1);
    auto deliveries = store_->list_deliveries_for_message(published->message.id);
    EXPECT_TRUE(deliveries.has_value() && deliveries->size() == 1);
    return deliveries->front();
  }

  // A delivery refused for good by a 400 with a two-line error text.
  store::Delivery dead(const std::string& app_id) {
    const auto id = pending(app_id).id;
    auto claimed = store_->claim_due(store::ClaimRequest{"w1", 30'000, 100});
    EXPECT_TRUE(claimed.has_value());
    for (const auto& d : *claimed) {
      if (d.id != id) continue;
      AttemptReport report;
      report.delivery_id = d.id;
      report.lease_owner = "w1";
      report.attempt.response_status = 400;
      report.attempt.error = "HTTP 400\tbad\nrequest";
      report.next = AttemptReport::Next::kDead;
      auto recorded = store_->record_attempt(report);
      EXPECT_TRUE(recorded.has_value()) << recorded.error().message;
      return recorded.value_or(store::Delivery{});
    }
    ADD_FAILURE() << "delivery " << id << " was not claimed";
    return {};
  }

  DlqOutcome run(const std::vector<std::string>& words) {
    CLI::App app;
    DlqArgs args;
    add_dlq_command(app, args);
    std::vector<std::string> reversed(words.rbegin(), words.rend());
    DlqOutcome outcome;
    try {
      app.parse(reversed);
    } catch (const CLI::ParseError& error) {
      outcome.exit_code = kExitUsage;
      outcome.err = error.what();
      return outcome;
    }
    std::ostringstream out, err;
    outcome.exit_code = run_dlq_on(*store_, args, out, err);
    outcome.out = out.str();
    outcome.err = err.str();
    return outcome;
  }

  std::vector<std::string> dead_ids() {
    auto page = store_->list_dead(store::DeadLetterFilter{}, store::PageRequest{});
    EXPECT_TRUE(page.has_value());
    std::vector<std::string> ids;
    for (const auto& d : page->data) ids.push_back(d.id);
    return ids;
  }

  std::vector<store::AuditEntry> audit(const std::string& action) {
    store::AuditFilter filter;
    filter.action = action;
    auto page = store_->list_audit(filter, store::PageRequest{});
    EXPECT_TRUE(page.has_value());
    return page.value_or(store::Page<store::AuditEntry>{}).data;
  }

  store::testing::FakeClock clock_;
  store::testing::FakeIds ids_;
  std::unique_ptr<store::Store> store_;
  store::Application app_;
  store::Endpoint endpoint_;
};

// A04: the dead letter is visible through the CLI, one tab-separated row each.
TEST_F(DlqCommandTest, A04_ListTableShowsEachDeadLetterOnOneRow) {
  const auto d = dead(app_.id);
  pending(app_.id);  // not dead: not listed
  const auto result = run({"dlq", "list"});
  ASSERT_EQ(result.exit_code, kExitOk) << result.err;
  std::istringstream lines(result.out);
  std::string header, row, extra;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_FALSE(std::getline(lines, extra)) << result.out;
  EXPECT_EQ(header,
            "DELIVERY ID\tMESSAGE ID\tENDPOINT ID\tATTEMPTS\tLAST STATUS\tLAST ERROR\tDEAD SINCE");
  EXPECT_EQ(row, d.id + '\t' + d.msg_id + '\t' + endpoint_.id + "\t1\t400\tHTTP 400 bad request\t" +
                     "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(result.err, "");
}

TEST_F(DlqCommandTest, ListJsonHasTheApiDeliveryFields) {
  const auto d = dead(app_.id);
  const auto result = run({"dlq", "list", "--json"});
  ASSERT_EQ(result.exit_code, kExitOk) << result.err;
  const auto rows = nlohmann::json::parse(result.out);
  ASSERT_EQ(rows.size(), 1u) << result.out;
  EXPECT_EQ(rows[0].value("id", ""), d.id);
  EXPECT_EQ(rows[0].value("msgId", ""), d.msg_id);
  EXPECT_EQ(rows[0].value("endpointId", ""), endpoint_.id);
  EXPECT_EQ(rows[0].value("appId", ""), app_.id);
  EXPECT_EQ(rows[0].value("status", ""), "dead");
  EXPECT_EQ(rows[0].value("attempts", 0), 1);
  EXPECT_EQ(rows[0].value("lastResponseStatusCode", 0), 400);
}

TEST_F(DlqCommandTest, ListFiltersByAppIdOrUidEndpointAndDeadSince) {
  const auto first = dead(app_.id);
  clock_.advance(60'000);
  const auto other_app = make_app("billing");
  make_endpoint(other_app.id);
  const auto second = dead(other_app.id);
  auto ids_of = [&](std::vector<std::string> words) {
    words.insert(words.begin(), {"dlq", "list", "--json"});
    const auto result = run(words);
    EXPECT_EQ(result.exit_code, kExitOk) << result.err;
    std::vector<std::string> ids;
    for (const auto& row : nlohmann::json::parse(result.out)) ids.push_back(row.value("id", ""));
    return ids;
  };
  using Ids = std::vector<std::string>;
  EXPECT_EQ(ids_of({}), (Ids{second.id, first.id}));  // newest first
  EXPECT_EQ(ids_of({"--app", "shop-uid"}), Ids{first.id});
  EXPECT_EQ(ids_of({"--app", other_app.id}), Ids{second.id});
  EXPECT_EQ(ids_of({"--endpoint", endpoint_.id}), Ids{first.id});
  const std::string between = std::to_string(second.updated_at - 30'000);
  EXPECT_EQ(ids_of({"--since", between}), Ids{second.id});
  EXPECT_EQ(ids_of({"--until", between}), Ids{first.id});
  EXPECT_EQ(ids_of({"--since", "2023-11-14T22:14:20Z"}), Ids{second.id});  // = second's time
}

TEST_F(DlqCommandTest, ListOfAnUnknownApplicationFailsAndSaysSo) {
  const auto result = run({"dlq", "list", "--app", "nope"});
  EXPECT_EQ(result.exit_code, kExitInvalid);
  EXPECT_NE(result.err.find("nope"), std::string::npos) << result.err;
}

TEST_F(DlqCommandTest, ListBeyondTheLimitSaysMoreMatchOnStderr) {
  dead(app_.id);
  dead(app_.id);
  const auto result = run({"dlq", "list", "--limit", "1"});
  ASSERT_EQ(result.exit_code, kExitOk) << result.err;
  EXPECT_NE(result.err.find("more dead letters match"), std::string::npos) << result.err;
}

// A05: the replay goes back to pending and its reason, actor and before/after are audited.
TEST_F(DlqCommandTest, A05_ReplayMakesTheDeadLetterPendingAndIsAuditedWithReasonAndActor) {
  const auto d = dead(app_.id);
  const auto result =
      run({"dlq", "replay", d.id, "--reason", "receiver fixed its 400", "--actor", "alice"});
  ASSERT_EQ(result.exit_code, kExitOk) << result.err;
  EXPECT_EQ(result.out, "replayed 1 dead letter\n");
  const auto after = store_->get_delivery(d.id);
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->status, DeliveryStatus::kPending);
  EXPECT_EQ(after->attempts, 0);
  const auto entries = audit("dlq.replay");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].actor, "alice");
  EXPECT_EQ(entries[0].reason, "receiver fixed its 400");
  EXPECT_EQ(entries[0].target_type, "delivery");
  EXPECT_EQ(entries[0].target_id, d.id);
  ASSERT_TRUE(entries[0].before && entries[0].after);
  EXPECT_NE(entries[0].before->find("dead"), std::string::npos) << *entries[0].before;
  EXPECT_NE(entries[0].after->find("pending"), std::string::npos) << *entries[0].after;
}

TEST_F(DlqCommandTest, ReplayToAnotherEndpointOfTheSameApplication) {
  const auto d = dead(app_.id);
  const auto corrected = make_endpoint(app_.id);
  const auto result =
      run({"dlq", "replay", d.id, "--reason", "moved", "--to-endpoint", corrected.id});
  ASSERT_EQ(result.exit_code, kExitOk) << result.err;
  EXPECT_EQ(result.out, "replayed 1 dead letter to endpoint " + corrected.id + "\n");
  EXPECT_EQ(store_->get_delivery(d.id)->endpoint_id, corrected.id);
  EXPECT_EQ(audit("dlq.replay").at(0).actor, "cli");  // the default actor
}

TEST_F(DlqCommandTest, ReplayToAnEndpointOfAnotherApplicationChangesNothing) {
  const auto d = dead(app_.id);
  const auto other_app = make_app("billing");
  const auto foreign = make_endpoint(other_app.id);
  const auto result = run({"dlq", "replay", d.id, "--reason", "r", "--to-endpoint", foreign.id});
  EXPECT_EQ(result.exit_code, kExitInvalid);
  EXPECT_NE(result.err.find("nothing was changed"), std::string::npos) << result.err;
  EXPECT_EQ(dead_ids(), std::vector<std::string>{d.id});
  EXPECT_TRUE(audit("dlq.replay").empty());
}

TEST_F(DlqCommandTest, DiscardRemovesEveryIdFromTheListWithOneAuditEntryEach) {
  const auto a = dead(app_.id);
  const auto b = dead(app_.id);
  const auto kept = dead(app_.id);
  const auto result = run({"dlq", "discard", a.id, b.id, a.id, "--reason", "customer gone"});
  ASSERT_EQ(result.exit_code, kExitOk) << result.err;
  EXPECT_EQ(result.out, "discarded 2 dead letters\n");  // the repeated id counts once
  EXPECT_EQ(dead_ids(), std::vector<std::string>{kept.id});
  EXPECT_EQ(store_->get_delivery(a.id)->status, DeliveryStatus::kDiscarded);
  const auto entries = audit("dlq.discard");
  ASSERT_EQ(entries.size(), 2u);
  for (const auto& e : entries) {
    EXPECT_EQ(e.reason, "customer gone");
    EXPECT_EQ(e.actor, "cli");
  }
}

TEST_F(DlqCommandTest, UnknownAndNotDeadIdsAreEachNamedAndNothingIsChanged) {
  const auto d = dead(app_.id);
  const auto open = pending(app_.id);
  for (const char* verb : {"replay", "discard"}) {
    const auto result = run({"dlq", verb, d.id, "del_unknown", open.id, "--reason", "r"});
    EXPECT_EQ(result.exit_code, kExitInvalid) << verb;
    EXPECT_NE(result.err.find("nothing was changed"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("del_unknown: no such delivery"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(open.id + ": not dead (status pending)"), std::string::npos)
        << result.err;
    EXPECT_EQ(result.err.find(d.id + ":"), std::string::npos) << result.err;  // d is fine
    EXPECT_EQ(result.out, "");
  }
  EXPECT_EQ(dead_ids(), std::vector<std::string>{d.id});
  EXPECT_TRUE(audit("dlq.replay").empty());
  EXPECT_TRUE(audit("dlq.discard").empty());
}

}  // namespace
}  // namespace hookd::cli
