// A04/A05/A30 at the API level: dead letters are visible with filters, inspectable
// (payload + attempts), replayable (one or many, optionally to another endpoint) and
// discardable — each manual action in the audit log with actor, reason, before/after.
#include "api_fixture.hpp"

namespace hookd::api::testing {
namespace {

class DlqTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    app_ = make_app();
    ep_ = make_endpoint(app_);
    msg_ = publish(app_, {{"payload", {{"order", 7}}}});
    publish(app_);
    ASSERT_EQ(dead_letter_all(), 2);
  }
  std::vector<std::string> dead_ids() {
    std::vector<std::string> ids;
    const auto list = call("GET", "/api/v1/hookd/dlq").json();
    for (const auto& d : list["data"]) ids.push_back(d["id"]);
    return ids;
  }
  std::string app_, ep_;
  nlohmann::json msg_;
};

TEST_F(DlqTest, A04_DeadLettersAreListedWithFilters) {
  auto all = call("GET", "/api/v1/hookd/dlq");
  ASSERT_EQ(all.status, 200) << all.body;
  ASSERT_EQ(all.json()["data"].size(), 2u);
  EXPECT_EQ(all.json()["data"][0]["status"], "dead");
  EXPECT_EQ(call("GET", "/api/v1/hookd/dlq?app_id=" + app_).json()["data"].size(), 2u);
  EXPECT_EQ(call("GET", "/api/v1/hookd/dlq?endpoint_id=ep_other").json()["data"].size(), 0u);
  EXPECT_EQ(call("GET", "/api/v1/hookd/dlq?since=2030-01-01T00:00:00Z").json()["data"].size(), 0u);
  EXPECT_EQ(call("GET", "/api/v1/hookd/dlq?until=2030-01-01T00:00:00Z").json()["data"].size(), 2u);
  EXPECT_EQ(call("GET", "/api/v1/hookd/dlq?since=later").status, 422);
  EXPECT_EQ(call("GET", "/api/v1/hookd/dlq?app_id=app_missing").status, 404);
}

TEST_F(DlqTest, InspectShowsPayloadAndAttempts) {
  std::string id;
  const auto list = call("GET", "/api/v1/hookd/dlq").json();
  for (const auto& d : list["data"]) {
    if (d["msgId"] == msg_["id"]) id = d["id"];
  }
  auto r = call("GET", "/api/v1/hookd/dlq/" + id);
  ASSERT_EQ(r.status, 200) << r.body;
  auto j = r.json();
  EXPECT_EQ(j["message"]["payload"]["order"], 7) << r.body;
  ASSERT_EQ(j["attempts"].size(), 1u);
  EXPECT_EQ(j["attempts"][0]["responseStatusCode"], 400);
  // The dead letter says why: the last HTTP status (no transport error, empty body).
  EXPECT_EQ(j["delivery"]["lastError"], "HTTP 400") << r.body;
  EXPECT_EQ(j["delivery"]["lastResponseStatusCode"], 400);
  EXPECT_EQ(list["data"][0]["lastError"], "HTTP 400");
  EXPECT_EQ(call("GET", "/api/v1/hookd/dlq/dlv_missing").status, 404);
}

TEST_F(DlqTest, A05_ReplayOneIsAuditedWithReasonAndBeforeAfter) {
  const auto id = dead_ids().front();
  EXPECT_EQ(post("/api/v1/hookd/dlq/" + id + "/replay", nlohmann::json::object()).status, 422);
  auto r = post("/api/v1/hookd/dlq/" + id + "/replay", {{"reason", "receiver fixed"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["replayed"], 1);
  EXPECT_EQ(store_->get_delivery(id).value().status, store::DeliveryStatus::kPending);
  auto again = post("/api/v1/hookd/dlq/" + id + "/replay", {{"reason", "twice"}});
  EXPECT_EQ(again.status, 409) << "only dead deliveries can be replayed";

  auto audit = call("GET", "/api/v1/hookd/audit?action=dlq.replay").json()["data"];
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0]["actor"], "alice");
  EXPECT_EQ(audit[0]["reason"], "receiver fixed");
  EXPECT_EQ(audit[0]["targetId"], id);
  EXPECT_FALSE(audit[0]["before"].is_null());
  EXPECT_FALSE(audit[0]["after"].is_null());
}

TEST_F(DlqTest, ReplayManyToAnotherEndpoint) {
  const auto other = make_endpoint(app_, {{"url", "https://fixed.example/hook"}});
  auto r = post("/api/v1/hookd/dlq/replay",
                {{"ids", dead_ids()}, {"reason", "moved"}, {"endpointId", other}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["replayed"], 2);
  auto claimed = store_->claim_due(store::ClaimRequest{"w", 30'000, 10});
  ASSERT_TRUE(claimed.has_value());
  EXPECT_EQ(claimed->size(), 2u);
  for (const auto& d : *claimed) {
    EXPECT_EQ(d.endpoint_id, other);
  }
  EXPECT_EQ(post("/api/v1/hookd/dlq/replay", {{"reason", "x"}}).status, 422) << "ids required";
  EXPECT_EQ(post("/api/v1/hookd/dlq/replay", {{"ids", dead_ids()}, {"reason", "   "}}).status, 422)
      << "a blank reason is no reason (A30)";
}

TEST_F(DlqTest, A30_DiscardIsAudited) {
  const auto ids = dead_ids();
  auto r = post("/api/v1/hookd/dlq/discard", {{"ids", ids}, {"reason", "obsolete orders"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["discarded"], 2);
  EXPECT_EQ(call("GET", "/api/v1/hookd/dlq").json()["data"].size(), 0u);
  auto audit = call("GET", "/api/v1/hookd/audit?action=dlq.discard").json()["data"];
  EXPECT_EQ(audit.size(), 2u);
  EXPECT_EQ(audit[0]["reason"], "obsolete orders");
  EXPECT_EQ(post("/api/v1/hookd/dlq/" + ids[0] + "/discard", {{"reason", "x"}}).status, 409);
}

}  // namespace
}  // namespace hookd::api::testing
