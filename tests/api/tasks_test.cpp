// Svix background tasks through the API: recover and replay-missing answer 202 with a stored
// qtask_ task (GET /api/v1/background-task[/{id}]), replay-missing delivers each missing
// routed message once and is audited, endpoint stats count the store's deliveries, and a
// resent delivery's attempts say triggerType 1.
// Mutations these tests are written to catch (reasoned, not each run): finished_task not
// storing the task (get → 404), the replay audit left out, stats answering the whole
// application's counts, the list ignoring `task`, the resend leaving its trigger scheduled.
#include "api_fixture.hpp"
#include "wire/time.hpp"

namespace hookd::api::testing {
namespace {

constexpr const char* kSince = "2020-01-01T00:00:00Z";

class TasksTest : public ApiTest {
 protected:
  std::string ep_path(const std::string& app, const std::string& ep) {
    return "/api/v1/app/" + app + "/endpoint/" + ep;
  }
};

TEST_F(TasksTest, RecoverLeavesAFinishedTaskThatCanBeRead) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  publish(app);
  publish(app);
  ASSERT_EQ(dead_letter_all(), 2);
  auto r = post(ep_path(app, ep) + "/recover", {{"since", kSince}});
  ASSERT_EQ(r.status, 202) << r.body;
  const auto id = r.json()["id"].get<std::string>();
  EXPECT_EQ(id.rfind("qtask_", 0), 0u) << id;
  EXPECT_EQ(id.size(), 33u) << "Svix: ^qtask_[A-Za-z0-9]{27}$";
  EXPECT_EQ(r.json()["status"], "finished");
  EXPECT_EQ(r.json()["task"], "endpoint.recover");

  auto got = call("GET", "/api/v1/background-task/" + id);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.json()["id"], id);
  EXPECT_EQ(got.json()["task"], "endpoint.recover");
  EXPECT_EQ(got.json()["status"], "finished");
  EXPECT_EQ(got.json()["data"]["recovered"], 2);
  EXPECT_EQ(got.json()["endpointId"], ep);
  EXPECT_TRUE(got.json()["updatedAt"].is_string());
  EXPECT_EQ(call("GET", "/api/v1/background-task/qtask_nope").status, 404);
}

TEST_F(TasksTest, ReplayMissingDeliversTheRoutedMessagesTheEndpointNeverGotOnce) {
  const auto app = make_app();
  const auto wanted = publish(app, {{"eventType", "order.paid"}})["id"].get<std::string>();
  publish(app, {{"eventType", "order.refunded"}});  // not in the endpoint's filter
  const auto ep = make_endpoint(app, {{"filterTypes", {"order.paid"}}});
  publish(app, {{"eventType", "order.paid"}});  // published to it already
  const auto path = ep_path(app, ep) + "/replay-missing";

  EXPECT_EQ(post(path, nlohmann::json::object()).status, 422) << "since required";
  EXPECT_EQ(post(path, {{"since", kSince}, {"until", "2019-01-01T00:00:00Z"}}).status, 422);
  EXPECT_EQ(post(ep_path(app, "ep_nope") + "/replay-missing", {{"since", kSince}}).status, 404);

  auto r = post(path, {{"since", kSince}}, {{"X-Hookd-Reason", "receiver lost its queue"}});
  ASSERT_EQ(r.status, 202) << r.body;
  EXPECT_EQ(r.json()["task"], "endpoint.replay");
  EXPECT_EQ(r.json()["status"], "finished");
  EXPECT_EQ(r.json()["replayed"], 1);
  auto deliveries = store_->list_deliveries_for_message(wanted);
  ASSERT_TRUE(deliveries.has_value());
  ASSERT_EQ(deliveries->size(), 1u);
  EXPECT_EQ((*deliveries)[0].endpoint_id, ep);
  EXPECT_EQ(store_->count_deliveries(store::DeliveryStatus::kPending).value_or(-1), 2);

  auto again = post(path, {{"since", kSince}});
  ASSERT_EQ(again.status, 202) << again.body;
  EXPECT_EQ(again.json()["replayed"], 0) << "nothing is missing any more";
  auto task = call("GET", "/api/v1/background-task/" + again.json()["id"].get<std::string>());
  EXPECT_EQ(task.json()["data"]["replayed"], 0);

  auto audit = call("GET", "/api/v1/hookd/audit?action=endpoint.replay_missing").json();
  ASSERT_EQ(audit["data"].size(), 2u);
  const auto& first = audit["data"][1];
  EXPECT_EQ(first["actor"], "alice");
  EXPECT_EQ(first["targetId"], ep);
  EXPECT_EQ(first["reason"], "receiver lost its queue");
  EXPECT_EQ(first["before"]["since"], "2020-01-01T00:00:00.000Z");
  EXPECT_EQ(first["after"]["replayed"], 1);
}

TEST_F(TasksTest, BackgroundTaskListFiltersAndPages) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  ASSERT_EQ(post(ep_path(app, ep) + "/recover", {{"since", kSince}}).status, 202);
  clock_.advance(1);  // task ids are time-sortable
  ASSERT_EQ(post(ep_path(app, ep) + "/replay-missing", {{"since", kSince}}).status, 202);
  clock_.advance(1);
  ASSERT_EQ(post(ep_path(app, ep) + "/replay-missing", {{"since", kSince}}).status, 202);

  auto all = call("GET", "/api/v1/background-task");
  ASSERT_EQ(all.status, 200) << all.body;
  ASSERT_EQ(all.json()["data"].size(), 3u);
  EXPECT_EQ(all.json()["data"][0]["task"], "endpoint.replay") << "newest first";
  EXPECT_EQ(all.json()["data"][2]["task"], "endpoint.recover");
  EXPECT_EQ(all.json()["done"], true);

  auto recovers = call("GET", "/api/v1/background-task?task=endpoint.recover").json();
  ASSERT_EQ(recovers["data"].size(), 1u);
  EXPECT_EQ(recovers["data"][0]["task"], "endpoint.recover");
  EXPECT_EQ(call("GET", "/api/v1/background-task?status=failed").json()["data"].size(), 0u);
  EXPECT_EQ(call("GET", "/api/v1/background-task?status=finished").json()["data"].size(), 3u);
  EXPECT_EQ(call("GET", "/api/v1/background-task?status=done").status, 422);
  EXPECT_EQ(call("GET", "/api/v1/background-task?task=endpoint.nap").status, 422);

  auto first = call("GET", "/api/v1/background-task?limit=2").json();
  ASSERT_EQ(first["data"].size(), 2u);
  EXPECT_EQ(first["done"], false);
  auto rest = call("GET", "/api/v1/background-task?limit=2&iterator=" +
                              first["iterator"].get<std::string>())
                  .json();
  ASSERT_EQ(rest["data"].size(), 1u);
  EXPECT_EQ(rest["data"][0]["task"], "endpoint.recover");
}

TEST_F(TasksTest, EndpointStatsCountTheEndpointsDeliveries) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  const auto other = make_endpoint(app);
  publish(app);
  publish(app);
  ASSERT_EQ(dead_letter_all(), 4);  // two to each endpoint
  clock_.advance(60'000);
  publish(app);  // one pending for each
  auto r = call("GET", ep_path(app, ep) + "/stats");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json(),
            (nlohmann::json{
                {"success", 0}, {"pending", 1}, {"sending", 0}, {"fail", 2}, {"canceled", 0}}));
  auto late = call("GET", ep_path(app, ep) + "/stats?since=" + wire::format_time(clock_.now_ms()));
  ASSERT_EQ(late.status, 200) << late.body;
  EXPECT_EQ(late.json()["fail"], 0);
  EXPECT_EQ(late.json()["pending"], 1);
  auto early =
      call("GET", ep_path(app, other) + "/stats?until=" + wire::format_time(clock_.now_ms()));
  EXPECT_EQ(early.json()["fail"], 2);
  EXPECT_EQ(early.json()["pending"], 0);
  EXPECT_EQ(call("GET", ep_path(app, ep) + "/stats?since=yesterday").status, 422);
  EXPECT_EQ(call("GET", ep_path(app, "ep_nope") + "/stats").status, 404);
}

TEST_F(TasksTest, AResentAttemptHasTriggerTypeManual) {
  const auto app = make_app();
  const auto ep = make_endpoint(app);
  const auto msg = publish(app)["id"].get<std::string>();
  ASSERT_EQ(dead_letter_all(), 1);
  ASSERT_EQ(
      call("POST", "/api/v1/app/" + app + "/msg/" + msg + "/endpoint/" + ep + "/resend").status,
      202);
  ASSERT_EQ(dead_letter_all(), 1);
  auto attempts = call("GET", "/api/v1/app/" + app + "/attempt/msg/" + msg).json();
  ASSERT_EQ(attempts["data"].size(), 2u);
  EXPECT_EQ(attempts["data"][0]["triggerType"], 1) << "the resent one (newest first)";
  EXPECT_EQ(attempts["data"][1]["triggerType"], 0);
}

}  // namespace
}  // namespace hookd::api::testing
