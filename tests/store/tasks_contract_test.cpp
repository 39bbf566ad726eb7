// Contract: Svix background tasks (put/get/list of qtask_ records), replay-missing (a
// delivery of every routed message an endpoint never got, once), endpoint stats (deliveries
// by state) and the resend trigger (a resent delivery's attempts are "manual").
// Mutations checked (SQLite) to fail these tests: dropping the NOT EXISTS of replay-missing
// (duplicates), dropping its routes_to filter (filtered-out messages replayed),
// `created_at <= until` (the message at `until` replayed), counting dead deliveries as
// pending in endpoint_stats_of, and the attempt insert keeping its own scheduled trigger.
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using Next = AttemptReport::Next;

BackgroundTask task(std::string id, std::string kind, std::string status, Millis at) {
  BackgroundTask t;
  t.id = std::move(id);
  t.task = std::move(kind);
  t.status = std::move(status);
  t.data = R"({"recovered":2})";
  t.app_id = "app_1";
  t.endpoint_id = "ep_1";
  t.created_at = at;
  t.updated_at = at + 1;
  return t;
}

std::vector<std::string> ids_of(const Page<BackgroundTask>& page) {
  std::vector<std::string> out;
  for (const auto& t : page.data) out.push_back(t.id);
  return out;
}

class TaskTest : public StoreContract {
 protected:
  void SetUp() override {
    StoreContract::SetUp();
    app_ = make_app();
  }
  // The ids of the messages the endpoint has a delivery of.
  std::vector<std::string> delivered_msgs(const std::vector<std::string>& msg_ids,
                                          const std::string& endpoint_id) {
    std::vector<std::string> out;
    for (const auto& id : msg_ids) {
      auto ds = store_->list_deliveries_for_message(id);
      EXPECT_TRUE(ds.has_value());
      for (const auto& d : ds.value_or(std::vector<Delivery>{}))
        if (d.endpoint_id == endpoint_id) out.push_back(id);
    }
    return out;
  }
  Application app_;
};

TEST_P(TaskTest, TasksAreStoredReadAndListedWithFilters) {
  ASSERT_TRUE(store_->put_task(task("qtask_1", "endpoint.recover", "finished", 10)).has_value());
  ASSERT_TRUE(store_->put_task(task("qtask_2", "endpoint.replay", "finished", 20)).has_value());
  ASSERT_TRUE(store_->put_task(task("qtask_3", "endpoint.replay", "failed", 30)).has_value());
  auto got = store_->get_task("qtask_2");
  ASSERT_TRUE(got.has_value()) << got.error().message;
  EXPECT_EQ(got->task, "endpoint.replay");
  EXPECT_EQ(got->status, "finished");
  EXPECT_EQ(got->data, R"({"recovered":2})");
  EXPECT_EQ(got->app_id, "app_1");
  EXPECT_EQ(got->endpoint_id, "ep_1");
  EXPECT_EQ(got->created_at, 20);
  EXPECT_EQ(got->updated_at, 21);
  EXPECT_EQ(store_->get_task("qtask_9").error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store_->put_task(task("qtask_1", "endpoint.replay", "running", 40)).error().code,
            ErrorCode::kConflict);

  EXPECT_EQ(ids_of(store_->list_tasks(TaskFilter{}, PageRequest{}).value()),
            (std::vector<std::string>{"qtask_1", "qtask_2", "qtask_3"}));
  TaskFilter replays;
  replays.task = "endpoint.replay";
  EXPECT_EQ(ids_of(store_->list_tasks(replays, PageRequest{}).value()),
            (std::vector<std::string>{"qtask_2", "qtask_3"}));
  TaskFilter finished_replays = replays;
  finished_replays.status = "finished";
  EXPECT_EQ(ids_of(store_->list_tasks(finished_replays, PageRequest{}).value()),
            (std::vector<std::string>{"qtask_2"}));

  PageRequest two;
  two.limit = 2;
  auto first = store_->list_tasks(TaskFilter{}, two).value();
  EXPECT_EQ(ids_of(first), (std::vector<std::string>{"qtask_1", "qtask_2"}));
  EXPECT_FALSE(first.done);
  PageRequest rest = two;
  rest.iterator = first.iterator;
  auto second = store_->list_tasks(TaskFilter{}, rest).value();
  EXPECT_EQ(ids_of(second), (std::vector<std::string>{"qtask_3"}));
  EXPECT_TRUE(second.done);
}

// The endpoint gets each missing, routed message of its application in [since, until) once.
TEST_P(TaskTest, ReplayMissingDeliversWhatTheEndpointNeverGotOnce) {
  const Millis t0 = clock_.now_ms();
  auto before = publish(app_.id, "a").message;  // before `since`: not replayed
  clock_.advance(1'000);
  const Millis since = clock_.now_ms();
  auto m1 = publish(app_.id, "a").message;
  auto m2 = publish(app_.id, "b").message;  // not in the endpoint's filter
  clock_.advance(1'000);
  auto m3 = publish(app_.id, "a", [](NewMessage& m) {
              m.channels = std::vector<std::string>{"c1"};
            }).message;
  clock_.advance(1'000);
  const Millis until = clock_.now_ms();
  auto at_until = publish(app_.id, "a").message;  // at `until`: outside (exclusive)
  auto other_app = make_app("other");
  publish(other_app.id, "a");
  auto ep =
      make_endpoint(app_.id, [](Endpoint& e) { e.filter_types = std::vector<std::string>{"a"}; });
  auto already = publish(app_.id, "a").message;  // published after the endpoint: delivered
  (void)already;
  const std::vector<std::string> all{before.id, m1.id, m2.id, m3.id, at_until.id};

  auto n = store_->replay_missing(ep.id, since, until);
  ASSERT_TRUE(n.has_value()) << n.error().message;
  EXPECT_EQ(*n, 2);
  EXPECT_EQ(delivered_msgs(all, ep.id), (std::vector<std::string>{m1.id, m3.id}));
  EXPECT_EQ(store_->replay_missing(ep.id, since, until).value(), 0) << "already delivered";
  EXPECT_EQ(claim("w1").size(), 3u) << "the two replayed and the one published after";

  EXPECT_EQ(store_->replay_missing(ep.id, t0, std::nullopt).value(), 2) << "before, at_until";
  EXPECT_EQ(delivered_msgs(all, ep.id),
            (std::vector<std::string>{before.id, m1.id, m3.id, at_until.id}));
  EXPECT_EQ(store_->replay_missing("ep_missing", t0).error().code, ErrorCode::kNotFound);
}

TEST_P(TaskTest, ReplayMissingHonoursChannelsAndIsAuditedInTheSameCall) {
  const Millis since = clock_.now_ms();
  auto plain = publish(app_.id, "a").message;
  auto c1 = publish(app_.id, "a", [](NewMessage& m) {
              m.channels = std::vector<std::string>{"c1", "c2"};
            }).message;
  auto c3 = publish(app_.id, "a", [](NewMessage& m) {
              m.channels = std::vector<std::string>{"c3"};
            }).message;
  auto ep =
      make_endpoint(app_.id, [](Endpoint& e) { e.channels = std::vector<std::string>{"c1"}; });
  AuditEntry audit = audit_entry("endpoint.replay_missing", ep.id, "");
  audit.target_type = "endpoint";
  ASSERT_EQ(store_->replay_missing(ep.id, since, std::nullopt, audit).value(), 1);
  EXPECT_EQ(delivered_msgs({plain.id, c1.id, c3.id}, ep.id), (std::vector<std::string>{c1.id}));
  auto log = store_->list_audit(audit_by_action("endpoint.replay_missing"), PageRequest{});
  ASSERT_TRUE(log.has_value());
  ASSERT_EQ(log->data.size(), 1u);
  EXPECT_EQ(log->data[0].target_id, ep.id);
  EXPECT_EQ(log->data[0].after.value_or(""), R"({"replayed":1,"status":"pending"})");
}

TEST_P(TaskTest, EndpointStatsCountDeliveriesByState) {
  auto ep = make_endpoint(app_.id);
  auto other = make_endpoint(app_.id);
  const Millis t0 = clock_.now_ms();
  for (int i = 0; i < 4; ++i) publish(app_.id, "a");  // 4 deliveries to each endpoint
  auto claimed = claim("w1", 100);
  ASSERT_EQ(claimed.size(), 8u);
  std::vector<Delivery> mine;
  for (const auto& d : claimed) {
    if (d.endpoint_id == ep.id)
      mine.push_back(d);
    else
      report(d, Next::kDelivered, 0, 200);
  }
  ASSERT_EQ(mine.size(), 4u);
  report(mine[0], Next::kDelivered, 0, 200);
  report(mine[1], Next::kDead, 0, 500);
  report(mine[2], Next::kRetry, clock_.now_ms() + 60'000, 500);  // waiting again: pending
  // mine[3] stays leased: sending
  clock_.advance(10'000);
  const Millis later = clock_.now_ms();
  publish(app_.id, "a");  // one more pending for each

  auto stats = store_->endpoint_stats(ep.id, std::nullopt, std::nullopt);
  ASSERT_TRUE(stats.has_value()) << stats.error().message;
  EXPECT_EQ(stats->success, 1);
  EXPECT_EQ(stats->fail, 1);
  EXPECT_EQ(stats->pending, 2);
  EXPECT_EQ(stats->sending, 1);
  EXPECT_EQ(stats->canceled, 0);
  auto early = store_->endpoint_stats(ep.id, t0, later).value();
  EXPECT_EQ(early.pending, 1) << "the late message is outside [t0, later)";
  auto late = store_->endpoint_stats(ep.id, later, std::nullopt).value();
  EXPECT_EQ(late.pending + late.success + late.fail + late.sending, 1);
  auto theirs = store_->endpoint_stats(other.id, std::nullopt, std::nullopt).value();
  EXPECT_EQ(theirs.success, 4);
  EXPECT_EQ(theirs.pending, 1);
  ASSERT_TRUE(store_->discard_dead({mine[1].id}, audit_entry("dlq.discard")).has_value());
  auto discarded = store_->endpoint_stats(ep.id, std::nullopt, std::nullopt).value();
  EXPECT_EQ(discarded.fail, 0);
  EXPECT_EQ(discarded.canceled, 1);
  EXPECT_EQ(store_->endpoint_stats("ep_missing", std::nullopt, std::nullopt).error().code,
            ErrorCode::kNotFound);
}

// Svix triggerType: a resent delivery's attempts are manual (1), a published one's scheduled.
TEST_P(TaskTest, AResentDeliverysAttemptsAreManual) {
  auto ep = make_endpoint(app_.id);
  auto msg = publish(app_.id, "a").message;
  report(claim("w1").at(0), Next::kDelivered, 0, 200);
  ASSERT_TRUE(store_->resend(msg.id, ep.id).has_value());
  auto resent = claim("w1");
  ASSERT_EQ(resent.size(), 1u);
  report(resent[0], Next::kRetry, clock_.now_ms(), 500);
  report(claim("w1").at(0), Next::kDelivered, 0, 200);  // its retry: manual too

  AttemptFilter by_msg;
  by_msg.msg_id = msg.id;
  auto attempts = store_->list_attempts(by_msg, PageRequest{});
  ASSERT_TRUE(attempts.has_value()) << attempts.error().message;
  ASSERT_EQ(attempts->data.size(), 3u);
  int manual = 0;
  for (const auto& a : attempts->data) {
    if (a.delivery_id == resent[0].id) {
      EXPECT_EQ(a.trigger, AttemptTrigger::kManual);
      ++manual;
    } else {
      EXPECT_EQ(a.trigger, AttemptTrigger::kScheduled);
    }
  }
  EXPECT_EQ(manual, 2);
}

INSTANTIATE_TEST_SUITE_P(Store, TaskTest, ::testing::ValuesIn(all_factories()), factory_name);

}  // namespace
}  // namespace hookd::store::testing

namespace hookd::store::testing {
namespace {

// A message whose payload was expunged has nothing to send: replay-missing skips it.
TEST_P(TaskTest, ReplayMissingSkipsExpungedMessages) {
  const Millis since = clock_.now_ms();
  auto kept = publish(app_.id, "a").message;
  auto expunged = publish(app_.id, "a").message;
  ASSERT_TRUE(store_->expunge_message_content(app_.id, expunged.id, std::nullopt).has_value());
  clock_.advance(1'000);
  auto ep = make_endpoint(app_.id);
  EXPECT_EQ(store_->replay_missing(ep.id, since, std::nullopt).value(), 1);
  EXPECT_EQ(delivered_msgs({kept.id, expunged.id}, ep.id), (std::vector<std::string>{kept.id}));
}

}  // namespace
}  // namespace hookd::store::testing
