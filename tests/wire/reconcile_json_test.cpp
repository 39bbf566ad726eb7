// The reconciler's records as JSON: a run's fields and its derived state, a difference with its
// evidence and `repairable` (never the repair event's payload), an action, and a difference
// with its actions.
#include <gtest/gtest.h>

#include "wire/json.hpp"

namespace hookd::wire {
namespace {

constexpr store::Millis kT0 = 1'700'000'000'000;  // 2023-11-14T22:13:20.000Z

store::ReconcileRun run() {
  store::ReconcileRun r;
  r.id = "rcr_1";
  r.source = "esign";
  r.trigger = "api";
  r.owner = "node-a/reconcile";
  r.started_at = kT0;
  r.items_read = 120;
  r.differences_found = 3;
  r.repaired = 2;
  return r;
}

store::Difference difference() {
  store::Difference d;
  d.id = "rcd_1";
  d.run_id = "rcr_1";
  d.source = "esign";
  d.kind = store::DifferenceKind::kMissing;
  d.subject = "evt-9";
  d.event_id = "evt-9";
  d.entity_key = "c-1";
  d.local_state = "absent";
  d.detail = "the feed has evt-9, hookd never received it";
  d.evidence = {"GET http://127.0.0.1:9/feed?iterator=abc", 200, "{\"data\":[", "ab12"};
  d.state = store::DifferenceState::kOpen;
  d.found_at = kT0;
  d.updated_at = kT0 + 1500;
  return d;
}

TEST(ReconcileJson, ARunningRun) {
  const auto j = to_json(run());
  EXPECT_EQ(j["id"], "rcr_1");
  EXPECT_EQ(j["source"], "esign");
  EXPECT_EQ(j["trigger"], "api");
  EXPECT_EQ(j["owner"], "node-a/reconcile");
  EXPECT_EQ(j["startedAt"], "2023-11-14T22:13:20.000Z");
  EXPECT_TRUE(j["finishedAt"].is_null());
  EXPECT_EQ(j["itemsRead"], 120);
  EXPECT_EQ(j["differencesFound"], 3);
  EXPECT_EQ(j["repaired"], 2);
  EXPECT_TRUE(j["error"].is_null());
  EXPECT_EQ(j["state"], "running");
  EXPECT_EQ(j.size(), 11u);
}

TEST(ReconcileJson, AFinishedAndAFailedRun) {
  auto r = run();
  r.finished_at = kT0 + 2000;
  auto j = to_json(r);
  EXPECT_EQ(j["finishedAt"], "2023-11-14T22:13:22.000Z");
  EXPECT_EQ(j["state"], "finished");
  r.error = "page 3: HTTP 503";
  j = to_json(r);
  EXPECT_EQ(j["state"], "failed");
  EXPECT_EQ(j["error"], "page 3: HTTP 503");
}

TEST(ReconcileJson, ADifference) {
  const auto j = to_json(difference());
  EXPECT_EQ(j["id"], "rcd_1");
  EXPECT_EQ(j["runId"], "rcr_1");
  EXPECT_EQ(j["source"], "esign");
  EXPECT_EQ(j["kind"], "missing");
  EXPECT_EQ(j["state"], "open");
  EXPECT_EQ(j["subject"], "evt-9");
  EXPECT_EQ(j["eventId"], "evt-9");
  EXPECT_EQ(j["entityKey"], "c-1");
  EXPECT_EQ(j["localState"], "absent");
  EXPECT_TRUE(j["remoteState"].is_null());
  EXPECT_EQ(j["detail"], "the feed has evt-9, hookd never received it");
  EXPECT_EQ(j["evidence"], (nlohmann::json{{"request", "GET http://127.0.0.1:9/feed?iterator=abc"},
                                           {"status", 200},
                                           {"excerpt", "{\"data\":["},
                                           {"sha256", "ab12"}}));
  EXPECT_EQ(j["repairable"], false);
  EXPECT_EQ(j["foundAt"], "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(j["updatedAt"], "2023-11-14T22:13:21.500Z");
  EXPECT_FALSE(j.contains("actions"));
  EXPECT_EQ(j.size(), 15u);
}

TEST(ReconcileJson, ADifferenceOutsideARunWithoutIdsOrStatus) {
  auto d = difference();
  d.run_id.clear();
  d.kind = store::DifferenceKind::kStateMismatch;
  d.state = store::DifferenceState::kResolved;
  d.event_id.reset();
  d.entity_key = "c-2";
  d.local_state = "pending";
  d.remote_state = "signed";
  d.evidence.status.reset();
  const auto j = to_json(d);
  EXPECT_TRUE(j["runId"].is_null());
  EXPECT_EQ(j["kind"], "state_mismatch");
  EXPECT_EQ(j["state"], "resolved");
  EXPECT_TRUE(j["eventId"].is_null());
  EXPECT_EQ(j["remoteState"], "signed");
  EXPECT_TRUE(j["evidence"]["status"].is_null());
}

TEST(ReconcileJson, RepairableWithoutThePayload) {
  auto d = difference();
  store::InboxEvent event;
  event.source = "esign";
  event.event_id = "evt-9";
  event.payload = R"({"secret-ish":"payload-bytes-77"})";
  d.repair_event = event;
  const auto j = to_json(d);
  EXPECT_EQ(j["repairable"], true);
  EXPECT_EQ(dump(j).find("payload-bytes-77"), std::string::npos) << dump(j);
}

TEST(ReconcileJson, AnInvalidUtf8ExcerptStillRenders) {
  auto d = difference();
  d.evidence.excerpt = "caf\xc3";  // cut inside a character at the 4 KiB limit
  const std::string text = dump(to_json(d));
  EXPECT_FALSE(nlohmann::json::parse(text, nullptr, false).is_discarded()) << text;
}

TEST(ReconcileJson, AnActionAndADifferenceWithItsActions) {
  store::DifferenceActionRecord a;
  a.difference_id = "rcd_1";
  a.action = store::DifferenceAction::kCorrectState;
  a.by = "ops";
  a.reason = "checked with the provider";
  a.before = "pending";
  a.after = "signed";
  a.at = kT0 + 60'000;
  const auto j = to_json(a);
  EXPECT_EQ(j, (nlohmann::json{{"action", "correct_state"},
                               {"by", "ops"},
                               {"reason", "checked with the provider"},
                               {"before", "pending"},
                               {"after", "signed"},
                               {"at", "2023-11-14T22:14:20.000Z"}}));
  store::DifferenceActionRecord first = a;
  first.action = store::DifferenceAction::kRepair;
  first.by = "auto";
  const auto with = to_json(difference(), {first, a});
  ASSERT_EQ(with["actions"].size(), 2u);
  EXPECT_EQ(with["actions"][0]["action"], "repair");
  EXPECT_EQ(with["actions"][1]["action"], "correct_state");
  EXPECT_EQ(with["id"], "rcd_1");
  EXPECT_EQ(to_json(difference(), {})["actions"], nlohmann::json::array());
}

TEST(ReconcileJson, APageOfRuns) {
  store::Page<store::ReconcileRun> page;
  page.data = {run()};
  page.iterator = "next";
  page.done = false;
  const auto j = nlohmann::json::parse(page_json(page, store::PageRequest{}));
  EXPECT_EQ(j["data"][0]["id"], "rcr_1");
  EXPECT_EQ(j["iterator"], "next");
  EXPECT_EQ(j["done"], false);
}

}  // namespace
}  // namespace hookd::wire
