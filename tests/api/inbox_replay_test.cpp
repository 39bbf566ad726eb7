// The inbox dead-letter replay at the API level: POST /api/v1/hookd/inbox/{id}/replay puts a
// dead inbound event back to `received` (attempts reset, due now), needs a reason, refuses
// events that are not dead (409) and unknown ids (404), and is audited (actor, reason).
#include "api_fixture.hpp"

namespace hookd::api::testing {
namespace {

class InboxReplayTest : public ApiTest {
 protected:
  // Stores one inbound event and lets it go dead (as the forwarder would).
  std::string dead_event() {
    store::InboxEvent e;
    e.source = "esign";
    e.event_id = "evt-1";
    e.payload = R"({"id":"evt-1"})";
    auto id = store_->inbox_insert(e).value().id;
    store::InboxClaimRequest req;
    req.lease_owner = "fw";
    auto claimed = store_->inbox_claim(req).value();
    EXPECT_EQ(claimed.size(), 1u);
    store::InboxStatusUpdate u;
    u.id = id;
    u.lease_owner = "fw";
    u.to = store::InboxStatus::kDead;
    u.error = "HTTP 400";
    u.count_attempt = true;
    EXPECT_TRUE(store_->inbox_update_status(u).has_value());
    return id;
  }
};

TEST_F(InboxReplayTest, DeadEventGoesBackToReceivedAndIsAudited) {
  const auto id = dead_event();
  const auto path = "/api/v1/hookd/inbox/" + id + "/replay";
  EXPECT_EQ(post(path, nlohmann::json::object()).status, 422) << "a reason is required";
  auto r = post(path, {{"reason", "app fixed"}});
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json()["status"], "received");
  EXPECT_EQ(r.json()["attempts"], 0);
  auto stored = store_->inbox_get(id).value();
  EXPECT_EQ(stored.status, store::InboxStatus::kReceived);
  EXPECT_FALSE(stored.last_error.has_value());

  auto shown = call("GET", "/api/v1/hookd/inbox/" + id).json();
  ASSERT_EQ(shown["history"].size(), 3u);
  EXPECT_EQ(shown["history"][2]["from"], "dead");
  EXPECT_EQ(shown["history"][2]["note"], "replayed: app fixed");

  auto audit = call("GET", "/api/v1/hookd/audit?action=inbox.replay").json()["data"];
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0]["actor"], "alice");
  EXPECT_EQ(audit[0]["reason"], "app fixed");
  EXPECT_EQ(audit[0]["targetId"], id);
}

TEST_F(InboxReplayTest, OnlyDeadEventsAndKnownIds) {
  const auto id = dead_event();
  ASSERT_EQ(post("/api/v1/hookd/inbox/" + id + "/replay", {{"reason", "once"}}).status, 200);
  EXPECT_EQ(post("/api/v1/hookd/inbox/" + id + "/replay", {{"reason", "twice"}}).status, 409);
  EXPECT_EQ(post("/api/v1/hookd/inbox/inb_missing/replay", {{"reason", "x"}}).status, 404);
  EXPECT_EQ(call("GET", "/api/v1/hookd/audit?action=inbox.replay").json()["data"].size(), 1u);
}

TEST_F(InboxReplayTest, NeedsTheToken) {
  const auto id = dead_event();
  auto r =
      call("POST", "/api/v1/hookd/inbox/" + id + "/replay", R"({"reason":"x"})", {}, "wrong-token");
  EXPECT_EQ(r.status, 401);
  EXPECT_EQ(store_->inbox_get(id).value().status, store::InboxStatus::kDead);
}

}  // namespace
}  // namespace hookd::api::testing
