// The outbound feed's routes: GET /api/v1/hookd/feed/{endpoint_id} (items, paging, limit,
// unknown endpoint, bad iterator), opened by an API token or by the endpoint's own feed
// token; the feed token (created on first GET and shown once, rotated, audited, never
// stored in clear); a feed token anywhere else, or for another endpoint's feed, is 401.
#include "api_fixture.hpp"

namespace hookd::api::testing {
namespace {

class FeedApiTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    app_ = make_app();
    ep_ = make_endpoint(app_);
  }
  std::string token_route(const std::string& ep) const {
    return "/api/v1/hookd/app/" + app_ + "/endpoint/" + ep + "/feed-token";
  }
  std::string feed(const std::string& ep, const std::string& query = "") const {
    return "/api/v1/hookd/feed/" + ep + query;
  }
  std::string issue_token(const std::string& ep) {
    auto a = call("GET", token_route(ep));
    EXPECT_EQ(a.status, 200) << a.body;
    return a.json().value("token", "");
  }
  std::string app_;
  std::string ep_;
};

TEST_F(FeedApiTest, ItemsCarryTheMessageItsExactPayloadAndTheDeliveryStatus) {
  auto a = post("/api/v1/app/" + app_ + "/msg",
                nlohmann::json::parse(R"({"eventType":"order.paid","eventId":"evt-1",)"
                                      R"("payload":{"b":1,"a":[true]}})"));
  ASSERT_EQ(a.status, 202) << a.body;
  // The exact bytes of the payload, as the message routes splice them.
  const std::string raw = R"({"eventType":"order.shipped","orderingKey":"o-7",)"
                          R"("payload":{"z": 1.50, "a" :"x"}})";
  auto b = call("POST", "/api/v1/app/" + app_ + "/msg", raw);
  ASSERT_EQ(b.status, 202) << b.body;
  auto got = call("GET", feed(ep_));
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_NE(got.body.find(R"({"z": 1.50, "a" :"x"})"), std::string::npos) << got.body;
  auto j = got.json();
  EXPECT_EQ(j["done"], true);
  EXPECT_TRUE(j["iterator"].is_string());
  ASSERT_EQ(j["data"].size(), 2u);
  const auto& first = j["data"][0];
  EXPECT_EQ(first["id"], a.json()["id"]);
  EXPECT_EQ(first["eventType"], "order.paid");
  EXPECT_EQ(first["eventId"], "evt-1");
  EXPECT_EQ(first["payload"], nlohmann::json::parse(R"({"b":1,"a":[true]})"));
  EXPECT_EQ(first["status"], "pending");
  EXPECT_TRUE(first["timestamp"].is_string());
  EXPECT_TRUE(first["deliveryId"].is_string());
  EXPECT_EQ(j["data"][1]["orderingKey"], "o-7");
  EXPECT_EQ(j["data"][1]["sequence"], 1);
}

TEST_F(FeedApiTest, PagesWithTheIteratorAndValidatesLimitAndIterator) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(publish(app_)["id"]);
  std::vector<std::string> read;
  std::string it;
  for (int guard = 0; guard < 10; ++guard) {
    auto page = call("GET", feed(ep_, "?limit=2" + (it.empty() ? "" : "&iterator=" + it))).json();
    for (const auto& item : page["data"]) read.push_back(item["id"]);
    it = page["iterator"];
    if (page["done"] == true) break;
  }
  EXPECT_EQ(read, ids);
  EXPECT_EQ(call("GET", feed(ep_, "?iterator=" + it)).json()["data"].size(), 0u);
  EXPECT_EQ(call("GET", feed(ep_)).json()["data"].size(), 5u);  // default limit 50
  EXPECT_EQ(call("GET", feed(ep_, "?limit=0")).status, 422);
  EXPECT_EQ(call("GET", feed(ep_, "?limit=251")).status, 422);
  EXPECT_EQ(call("GET", feed(ep_, "?limit=250")).status, 200);
  auto bad = call("GET", feed(ep_, "?iterator=msg_123"));
  EXPECT_EQ(bad.status, 422) << bad.body;
  EXPECT_EQ(call("GET", feed("ep_nope")).status, 404);
}

TEST_F(FeedApiTest, TheEndpointsFeedTokenOpensItsFeedOnly) {
  publish(app_);
  const std::string token = issue_token(ep_);
  ASSERT_TRUE(token.starts_with("fdt_")) << token;
  auto own = call("GET", feed(ep_), "", {}, token.c_str());
  EXPECT_EQ(own.status, 200) << own.body;
  EXPECT_EQ(own.json()["data"].size(), 1u);
  // Another endpoint's feed, and every other route: 401.
  const std::string other = make_endpoint(app_);
  EXPECT_EQ(call("GET", feed(other), "", {}, token.c_str()).status, 401);
  EXPECT_EQ(call("GET", "/api/v1/app", "", {}, token.c_str()).status, 401);
  EXPECT_EQ(call("GET", "/api/v1/app/" + app_ + "/endpoint/" + ep_, "", {}, token.c_str()).status,
            401);
  EXPECT_EQ(call("GET", token_route(ep_), "", {}, token.c_str()).status, 401);
  EXPECT_EQ(call("POST", token_route(ep_) + "/rotate", "", {}, token.c_str()).status, 401);
  EXPECT_EQ(call("GET", "/api/v1/app/" + app_ + "/msg", "", {}, token.c_str()).status, 401);
  // No token, a wrong one, a made-up fdt_ one.
  EXPECT_EQ(call("GET", feed(ep_), "", {}, nullptr).status, 401);
  EXPECT_EQ(call("GET", feed(ep_), "", {}, "fdt_0000").status, 401);
  auto wrong = call("GET", feed(ep_), "", {}, (token + "0").c_str());
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(wrong.header("WWW-Authenticate"), "Bearer");
}

TEST_F(FeedApiTest, TheTokenIsShownOnceRotationReplacesItBothAudited) {
  const std::string first = issue_token(ep_);
  auto again = call("GET", token_route(ep_));
  EXPECT_EQ(again.status, 409) << again.body;
  EXPECT_EQ(call("GET", feed(ep_), "", {}, first.c_str()).status, 200);

  auto rotated = call("POST", token_route(ep_) + "/rotate", "", {{"X-Hookd-Reason", "leaked"}});
  ASSERT_EQ(rotated.status, 200) << rotated.body;
  const std::string second = rotated.json().value("token", "");
  ASSERT_TRUE(second.starts_with("fdt_"));
  EXPECT_NE(second, first);
  EXPECT_EQ(call("GET", feed(ep_), "", {}, first.c_str()).status, 401);  // the old one is dead
  EXPECT_EQ(call("GET", feed(ep_), "", {}, second.c_str()).status, 200);

  auto audit = call("GET", "/api/v1/hookd/audit?target_id=" + ep_).json();
  std::vector<std::string> actions;
  for (const auto& e : audit["data"]) {
    actions.push_back(e["action"]);
    EXPECT_EQ(e["actor"], "alice");
    EXPECT_EQ(e.dump().find(first), std::string::npos) << "a token in the audit log";
    EXPECT_EQ(e.dump().find(second), std::string::npos) << "a token in the audit log";
  }
  std::sort(actions.begin(), actions.end());
  EXPECT_EQ(actions, (std::vector<std::string>{"endpoint.create", "endpoint.feed_token.create",
                                               "endpoint.feed_token.rotate"}));

  // Unknown endpoint or application: 404 (nothing issued).
  EXPECT_EQ(call("GET", token_route("ep_nope")).status, 404);
  EXPECT_EQ(
      call("POST", "/api/v1/hookd/app/app_nope/endpoint/" + ep_ + "/feed-token/rotate").status,
      404);
  // Rotation also works as the first issue.
  const std::string other = make_endpoint(app_);
  EXPECT_EQ(call("POST", token_route(other) + "/rotate").status, 200);
}

}  // namespace
}  // namespace hookd::api::testing
