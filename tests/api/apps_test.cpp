// Applications and event types: Svix shapes, get-or-create by uid, upsert, paging.
#include "api/problem.hpp"
#include "api_fixture.hpp"

namespace hookd::api::testing {
namespace {

TEST_F(ApiTest, CreateGetListUpdateDeleteApplication) {
  auto created =
      post("/api/v1/app", {{"name", "Shop"}, {"uid", "shop-1"}, {"metadata", {{"k", "v"}}}});
  ASSERT_EQ(created.status, 201) << created.body;
  auto app = created.json();
  EXPECT_TRUE(app["id"].get<std::string>().starts_with("app_"));
  EXPECT_EQ(app["uid"], "shop-1");
  EXPECT_EQ(app["metadata"]["k"], "v");
  EXPECT_EQ(app["createdAt"], "2023-11-14T22:13:20.000Z");  // FakeClock start

  const std::string id = app["id"];
  EXPECT_EQ(call("GET", "/api/v1/app/" + id).json()["name"], "Shop");
  EXPECT_EQ(call("GET", "/api/v1/app/shop-1").json()["id"], id) << "uid works as app_id";

  auto patched = call("PATCH", "/api/v1/app/shop-1", R"({"name":"Shop 2"})");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_EQ(patched.json()["name"], "Shop 2");
  EXPECT_EQ(patched.json()["uid"], "shop-1");

  auto put = call("PUT", "/api/v1/app/" + id, R"({"name":"Shop 3"})");
  ASSERT_EQ(put.status, 200);
  EXPECT_EQ(put.json()["uid"], nullptr) << "PUT replaces every field";

  EXPECT_EQ(call("DELETE", "/api/v1/app/" + id).status, 204);
  auto gone = call("GET", "/api/v1/app/" + id);
  EXPECT_EQ(gone.status, 404);
  EXPECT_NE(gone.json()["detail"].get<std::string>().find(id), std::string::npos);
}

TEST_F(ApiTest, GetIfExistsReturnsTheExistingApplication) {
  auto first = post("/api/v1/app?get_if_exists=true", {{"name", "A"}, {"uid", "acme"}});
  ASSERT_EQ(first.status, 201);
  auto again = post("/api/v1/app?get_if_exists=true", {{"name", "B"}, {"uid", "acme"}});
  ASSERT_EQ(again.status, 200);
  EXPECT_EQ(again.json()["id"], first.json()["id"]);
  auto dup = post("/api/v1/app", {{"name", "B"}, {"uid", "acme"}});
  EXPECT_EQ(dup.status, 409);
}

TEST_F(ApiTest, PutUnknownApplicationCreatesItWithThatUid) {
  auto put = call("PUT", "/api/v1/app/tenant-9", R"({"name":"T9"})");
  ASSERT_EQ(put.status, 201) << put.body;
  EXPECT_EQ(put.json()["uid"], "tenant-9");
}

TEST_F(ApiTest, ApplicationValidationNamesEveryField) {
  auto bad = post("/api/v1/app", {{"uid", "has space"}, {"rateLimit", "fast"}});
  ASSERT_EQ(bad.status, 422);
  const auto j = bad.json();
  EXPECT_EQ(j["code"], "validation");
  std::set<std::string> fields;
  for (const auto& e : j["errors"]) fields.insert(e["field"].get<std::string>());
  EXPECT_EQ(fields, (std::set<std::string>{"name", "uid", "rateLimit"}));
}

// Issue 17 item 5: a Svix SDK parses a 422 as HTTPValidationError ({detail: [{loc, msg, type}]},
// every loc item a string) and any other error as HttpErrorOut ({code, detail} strings); the
// problem+json members and hookd's own `errors` stay beside them.
TEST_F(ApiTest, ErrorsAlsoHaveSvixShapes) {
  auto bad = post("/api/v1/app", {{"name", "A"}, {"uid", "has space"}, {"metadata", {{"k", 1}}}});
  ASSERT_EQ(bad.status, 422) << bad.body;
  auto j = bad.json();
  ASSERT_TRUE(j["detail"].is_array()) << bad.body;
  ASSERT_EQ(j["detail"].size(), j["errors"].size());
  std::set<std::vector<std::string>> locations;
  for (const auto& d : j["detail"]) {
    EXPECT_TRUE(d["msg"].is_string() && !d["msg"].get<std::string>().empty()) << d;
    EXPECT_EQ(d["type"], "value_error");
    locations.insert(d["loc"].get<std::vector<std::string>>());
  }
  EXPECT_TRUE(locations.contains({"body", "uid"})) << bad.body;
  EXPECT_TRUE(j["message"].get<std::string>().starts_with("uid: ")) << bad.body;
  EXPECT_EQ(j["status"], 422);
  EXPECT_EQ(j["title"], "Unprocessable Content");

  auto query = call("GET", "/api/v1/app?limit=0");
  ASSERT_EQ(query.status, 422);
  EXPECT_EQ(query.json()["detail"][0]["loc"], nlohmann::json({"query", "limit"})) << query.body;

  auto missing = call("GET", "/api/v1/app/app_nope");
  ASSERT_EQ(missing.status, 404);
  EXPECT_EQ(missing.json()["code"], "not_found");
  EXPECT_TRUE(missing.json()["detail"].is_string()) << missing.body;
}

TEST(SvixLocation, SplitsTheFieldPathIntoStrings) {
  EXPECT_EQ(svix_location({"filterTypes[2]", "x"}), nlohmann::json({"body", "filterTypes", "2"}));
  EXPECT_EQ(svix_location({"response.status", "x"}),
            nlohmann::json({"body", "response", "status"}));
  EXPECT_EQ(svix_location({"limit", "x", "query"}), nlohmann::json({"query", "limit"}));
}

TEST_F(ApiTest, MalformedJsonIs400WithOffset) {
  auto bad = call("POST", "/api/v1/app", R"({"name": "x",})");
  ASSERT_EQ(bad.status, 400);
  EXPECT_NE(bad.json()["detail"].get<std::string>().find("byte offset"), std::string::npos);
  options_.max_json_depth = 3;
  start_api();
  auto deep = call("POST", "/api/v1/app", R"({"name":"x","metadata":{"a":{"b":{"c":1}}}})");
  EXPECT_EQ(deep.status, 400);
}

TEST_F(ApiTest, ListApplicationsPagesWithIterator) {
  for (int i = 0; i < 5; ++i) make_app("app" + std::to_string(i));
  auto first = call("GET", "/api/v1/app?limit=2");
  ASSERT_EQ(first.status, 200);
  auto j = first.json();
  EXPECT_EQ(j["data"].size(), 2u);
  EXPECT_FALSE(j["done"].get<bool>());
  EXPECT_EQ(j["prevIterator"], nullptr);
  std::vector<std::string> names;
  std::string iterator = j["iterator"];
  for (const auto& a : j["data"]) names.push_back(a["name"]);
  for (;;) {
    auto page = call("GET", "/api/v1/app?limit=2&iterator=" + iterator).json();
    for (const auto& a : page["data"]) names.push_back(a["name"]);
    if (page["done"].get<bool>()) break;
    iterator = page["iterator"];
  }
  EXPECT_EQ(names, (std::vector<std::string>{"app0", "app1", "app2", "app3", "app4"}));
  EXPECT_EQ(call("GET", "/api/v1/app?limit=0").status, 422);
  EXPECT_EQ(call("GET", "/api/v1/app?limit=abc").status, 422);
}

TEST_F(ApiTest, EventTypesCrudAndArchiveOnDelete) {
  auto created = post("/api/v1/event-type", {{"name", "order.paid"}, {"description", "Paid"}});
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(post("/api/v1/event-type", {{"name", "order.paid"}}).status, 409);
  EXPECT_EQ(post("/api/v1/event-type", {{"name", "bad name"}}).status, 422);
  EXPECT_EQ(call("GET", "/api/v1/event-type/order.paid").json()["description"], "Paid");
  auto patched = call("PATCH", "/api/v1/event-type/order.paid", R"({"description":"Was paid"})");
  EXPECT_EQ(patched.json()["description"], "Was paid");
  EXPECT_EQ(call("PUT", "/api/v1/event-type/order.refunded", R"({"description":"R"})").status, 201);
  EXPECT_EQ(call("GET", "/api/v1/event-type").json()["data"].size(), 2u);
  EXPECT_EQ(call("DELETE", "/api/v1/event-type/order.paid").status, 204);
  EXPECT_EQ(call("GET", "/api/v1/event-type").json()["data"].size(), 1u);
  EXPECT_EQ(call("GET", "/api/v1/event-type?include_archived=true").json()["data"].size(), 2u);
  EXPECT_EQ(call("DELETE", "/api/v1/event-type/order.paid?expunge=true").status, 204);
  EXPECT_EQ(call("GET", "/api/v1/event-type/order.paid").status, 404);
}

}  // namespace
}  // namespace hookd::api::testing
