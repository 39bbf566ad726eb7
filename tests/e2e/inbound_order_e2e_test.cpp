// The inbound gateway's ordering and causality through the real daemon: per-entity sequence
// order and stale events (A20), terminal states never moved back (A19), depends_on parking
// and the park timeout (A21), business keys (A11); the races of A40 (inbound_race.hpp, also
// run on PostgreSQL by pg_inbound_order_e2e_test.cpp).
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "e2e/inbound_helpers.hpp"
#include "e2e/inbound_race.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using namespace hookd::e2e::inbound;
using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

const std::string kContractKeys =
    "entity_key = \"/data/contract_id\"\nsequence = \"/data/version\"\n"
    "state = \"/data/status\"\nterminal_states = [\"signed\", \"voided\"]\n";

std::string contract_event(const std::string& id, int version, const std::string& status) {
  return nlohmann::json{
      {"event_id", id},
      {"data", {{"contract_id", "c-1"}, {"version", version}, {"status", status}}}}
      .dump();
}

std::string version_id(int v) {
  std::string id = "v";
  id += std::to_string(v);
  return id;
}

// The versions the app received, in arrival order.
std::vector<int> versions_received(const TestReceiver& app) {
  std::vector<int> out;
  for (const auto& r : app.requests()) {
    out.push_back(nlohmann::json::parse(r.body)["data"].value("version", -1));
  }
  return out;
}

TEST(InboundOrderE2E, OutOfOrderArrivalsAreAppliedInSequenceOrder) {  // A20
  TestReceiver app;
  app.enqueue("/c", ReceiverBehavior::respond(200).after(1500ms));  // holds the entity busy
  app.start();
  HookdProcess hookd(config_with_sources(standard_source("esign", app.url("/c"), kContractKeys)));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ASSERT_EQ(send_event(hookd, "esign", "v0", contract_event("v0", 0, "created")).status, 200);
  ASSERT_TRUE(app.wait_for_requests(1, 10s));
  // While version 0 is being forwarded, 3, 1, 2 arrive.
  for (int v : {3, 1, 2}) {
    const std::string id = version_id(v);
    ASSERT_EQ(send_event(hookd, "esign", id, contract_event(id, v, "sent")).status, 200);
  }
  for (const char* id : {"v1", "v2", "v3"}) {
    EXPECT_EQ(wait_for_status(hookd, "esign", id, "processed").value("status", ""), "processed")
        << id;
  }
  EXPECT_EQ(versions_received(app), (std::vector<int>{0, 1, 2, 3}));
}

TEST(InboundOrderE2E, AnOlderEventAfterANewerOneIsStaleNeverAppliedBackwards) {  // A20
  TestReceiver app;
  app.start();
  HookdProcess hookd(config_with_sources(standard_source("esign", app.url("/c"), kContractKeys)));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ASSERT_EQ(send_event(hookd, "esign", "v3", contract_event("v3", 3, "sent")).status, 200);
  wait_for_status(hookd, "esign", "v3", "processed");
  for (int v : {1, 2}) {
    const std::string id = version_id(v);
    ASSERT_EQ(send_event(hookd, "esign", id, contract_event(id, v, "sent")).status, 200);
  }
  for (const char* id : {"v1", "v2"}) {
    const auto e = wait_for_status(hookd, "esign", id, "stale");
    EXPECT_EQ(e.value("status", ""), "stale") << e.dump();
    EXPECT_NE(e["history"].back().value("note", "").find("not newer"), std::string::npos);
  }
  EXPECT_EQ(versions_received(app), (std::vector<int>{3}));
}

TEST(InboundOrderE2E, TerminalStateIsNeverMovedBackByAnOlderEvent) {  // A19
  TestReceiver app;
  app.start();
  const std::string no_sequence =
      "entity_key = \"/data/contract_id\"\nstate = \"/data/status\"\n"
      "terminal_states = [\"signed\", \"voided\"]\n";
  HookdProcess hookd(config_with_sources(standard_source("esign", app.url("/c"), kContractKeys) +
                                         standard_source("plain", app.url("/p"), no_sequence)));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  for (const std::string source : {"esign", "plain"}) {
    ASSERT_EQ(send_event(hookd, source, "t-signed", contract_event("t-signed", 5, "signed")).status,
              200);
    wait_for_status(hookd, source, "t-signed", "processed");
    ASSERT_EQ(send_event(hookd, source, "t-viewed", contract_event("t-viewed", 4, "viewed")).status,
              200);
    const auto older = wait_for_status(hookd, source, "t-viewed", "superseded");
    EXPECT_EQ(older.value("status", ""), "superseded") << source << older.dump();
    const auto signed_event = inbox_event(hookd, source, "t-signed");
    EXPECT_EQ(signed_event["entity"].value("state", ""), "signed") << source;
    EXPECT_TRUE(signed_event["entity"].value("terminal", false)) << source;
  }
  std::this_thread::sleep_for(300ms);
  std::multiset<std::string> seen;
  for (const auto& r : app.requests()) seen.insert(r.header("X-Hookd-Event-Id").value_or(""));
  EXPECT_EQ(seen, (std::multiset<std::string>{"t-signed", "t-signed"}));
}

TEST(InboundOrderE2E, A40_RacingSequencesOfManyEntitiesAreNeverAppliedBackwards) {  // A20
  TestReceiver app;
  OrderRace::answer_slowly_sometimes(app);
  app.start();
  const OrderRace race;
  HookdProcess hookd(config_with_sources(race.sources_toml(app)));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  race.run({&hookd}, app);
}

TEST(InboundOrderE2E, A19_TerminalStateHoldsWhenAnOlderEventArrivesWhileItIsInFlight) {  // A40
  TestReceiver app;
  TerminalInFlightRace::answer_signed_slowly(app);
  app.start();
  HookdProcess hookd(
      config_with_sources(standard_source("esign", app.url("/c"), TerminalInFlightRace::keys())));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  TerminalInFlightRace{}.run(hookd, app, "esign");
}

TEST(InboundOrderE2E, A21_DependentArrivingWhileItsDependencyIsInFlightFollowsIt) {  // A40
  TestReceiver app;
  DependencyInFlightRace::answer_parents_slowly(app);
  app.start();
  HookdProcess hookd(config_with_sources(
      standard_source("flow", app.url("/f"), DependencyInFlightRace::source_extra())));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  DependencyInFlightRace{}.run(hookd, app, "flow");
}

std::string dependent(const std::string& id, const std::vector<std::string>& deps) {
  return nlohmann::json{{"id", id}, {"depends_on", deps}}.dump();
}

TEST(InboundOrderE2E, DependentWaitsParkedAndIsAppliedRightAfterItsDependency) {  // A21
  TestReceiver app;
  app.start();
  HookdProcess hookd(
      config_with_sources(standard_source("flow", app.url("/f"),
                                          "depends_on = \"/depends_on\"\npark_timeout = \"1m\"") +
                          standard_source("lonely", app.url("/l"),
                                          "depends_on = \"/depends_on\"\npark_timeout = \"1s\"")));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();

  ASSERT_EQ(send_event(hookd, "flow", "child", dependent("child", {"parent"})).status, 200);
  const auto parked = wait_for_status(hookd, "flow", "child", "parked");
  ASSERT_EQ(parked.value("status", ""), "parked") << parked.dump();
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(app.request_count(), 0u);
  ASSERT_EQ(send_event(hookd, "flow", "parent", dependent("parent", {})).status, 200);
  EXPECT_EQ(wait_for_status(hookd, "flow", "child", "processed").value("status", ""), "processed");
  ASSERT_EQ(app.requests().size(), 2u);
  EXPECT_EQ(app.requests()[0].header("X-Hookd-Event-Id"), "parent");
  EXPECT_EQ(app.requests()[1].header("X-Hookd-Event-Id"), "child");

  // A dependency that never comes: flagged for reconciliation after park_timeout.
  ASSERT_EQ(send_event(hookd, "lonely", "orphan", dependent("orphan", {"never"})).status, 200);
  nlohmann::json orphan;
  for (int i = 0; i < 200; ++i) {
    orphan = inbox_event(hookd, "lonely", "orphan");
    if (orphan.is_object() && orphan["lastError"].is_string() &&
        orphan["lastError"] == "park_timeout") {
      break;
    }
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(orphan.value("status", ""), "parked") << orphan.dump();
  EXPECT_EQ(orphan["lastError"], "park_timeout") << orphan.dump();
  EXPECT_NE(orphan["history"].back().value("note", "").find("flagged for reconciliation"),
            std::string::npos)
      << orphan.dump();
  EXPECT_EQ(app.request_count(), 2u);
  // The counter moves after the round that wrote the flag committed: poll it (bounded).
  double flagged = 0;
  for (int i = 0; i < 200 && flagged < 1; ++i) {
    flagged = metric_value(
        hookd, R"(hookd_inbound_forwards_total{source="lonely",outcome="park_timeout"})");
    if (flagged < 1) std::this_thread::sleep_for(50ms);
  }
  EXPECT_GE(flagged, 1);
}

TEST(InboundOrderE2E, TwoEventIdsOneBusinessKeyHaveOneBusinessEffect) {  // A11
  TestReceiver app;
  app.start();
  const std::string key = "business_key = \"delivery:{/data/order_id}\"\n";
  HookdProcess hookd(config_with_sources(
      standard_source("guarded", app.url("/g"), key + "business_key_guard = true\n") +
      standard_source("open", app.url("/o"), key)));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const std::string body = R"({"data":{"order_id":"o-9"}})";
  for (const std::string source : {"guarded", "open"}) {
    ASSERT_EQ(send_event(hookd, source, "first", body).status, 200);
    ASSERT_EQ(send_event(hookd, source, "second", body).status, 200);
  }
  // Without the guard the app gets both, with one Idempotency-Key (it applies one).
  wait_for_status(hookd, "open", "first", "processed");
  wait_for_status(hookd, "open", "second", "processed");
  std::set<std::string> open_keys;
  std::size_t open_requests = 0;
  for (const auto& r : app.requests()) {
    if (r.path != "/o") continue;
    ++open_requests;
    open_keys.insert(r.header("Idempotency-Key").value_or(""));
  }
  EXPECT_EQ(open_requests, 2u);
  EXPECT_EQ(open_keys, (std::set<std::string>{"delivery:o-9"}));
  // With the guard hookd forwards one and records the other.
  const auto first = wait_for_status(hookd, "guarded", "first", "processed");
  const auto second = wait_for_status(hookd, "guarded", "second", "duplicate-business-key");
  EXPECT_EQ(first.value("status", ""), "processed");
  EXPECT_EQ(second.value("status", ""), "duplicate-business-key") << second.dump();
  std::size_t guarded_requests = 0;
  for (const auto& r : app.requests()) guarded_requests += r.path == "/g" ? 1 : 0;
  EXPECT_EQ(guarded_requests, 1u);
}

}  // namespace
}  // namespace hookd::e2e
