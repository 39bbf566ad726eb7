// The inbox's dead letters through the real daemon: an event the application refuses for
// good goes `dead` with its `inbox.dead` audit entry; once the application is fixed, an
// operator replays it — through the API or the CLI — and it is forwarded and processed, each
// replay audited with actor and reason.
#include <gtest/gtest.h>

#include <set>

#include "e2e/inbound_helpers.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using namespace hookd::e2e::inbound;
using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

nlohmann::json audit(const HookdProcess& hookd, const std::string& action) {
  return hookd.get("/api/v1/hookd/audit?action=" + action).json()["data"];
}

TEST(InboundReplayE2E, DeadEventsAreReplayedThroughTheApiAndTheCli) {
  TestReceiver app;
  app.set_default(ReceiverBehavior::respond(400));  // not retryable: dead at once
  app.start();
  HookdProcess hookd(config_with_sources(standard_source("shop", app.url("/hooks"))));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  for (const std::string id : {"evt_api", "evt_cli"}) {
    ASSERT_EQ(send_event(hookd, "shop", id, R"({"id":")" + id + "\"}").status, 200);
  }
  const auto api_dead = wait_for_status(hookd, "shop", "evt_api", "dead");
  const auto cli_dead = wait_for_status(hookd, "shop", "evt_cli", "dead");
  ASSERT_EQ(api_dead.value("status", ""), "dead") << api_dead.dump();
  ASSERT_EQ(cli_dead.value("status", ""), "dead") << cli_dead.dump();
  EXPECT_EQ(audit(hookd, "inbox.dead").size(), 2u);

  app.set_default(ReceiverBehavior::respond(200));  // the application is fixed
  const std::string api_id = api_dead.value("id", "");
  EXPECT_EQ(hookd.post("/api/v1/hookd/inbox/" + api_id + "/replay", "{}").status, 422);
  const auto replayed =
      hookd.post("/api/v1/hookd/inbox/" + api_id + "/replay", R"({"reason":"app fixed"})");
  ASSERT_EQ(replayed.status, 200) << replayed.body;
  const auto cli = hookd.run_command(
      {"inbox", "replay", cli_dead.value("id", ""), "--reason", "app fixed too", "--actor", "bob",
       "--config", hookd.config_file().string(), "--database", hookd.database().string()});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;

  for (const std::string id : {"evt_api", "evt_cli"}) {
    const auto done = wait_for_status(hookd, "shop", id, "processed");
    EXPECT_EQ(done.value("status", ""), "processed") << done.dump();
    EXPECT_EQ(forwards_of(app, id), 2u) << id;  // refused once, accepted after the replay
  }
  const auto replays = audit(hookd, "inbox.replay");
  ASSERT_EQ(replays.size(), 2u) << replays.dump();
  std::set<std::string> actors;
  for (const auto& a : replays) actors.insert(a.value("actor", ""));
  EXPECT_TRUE(actors.contains("bob"));
  // Processed now: neither path replays it again.
  EXPECT_EQ(hookd.post("/api/v1/hookd/inbox/" + api_id + "/replay", R"({"reason":"again"})").status,
            409);
  const auto again =
      hookd.run_command({"inbox", "replay", api_id, "--reason", "again", "--config",
                         hookd.config_file().string(), "--database", hookd.database().string()});
  EXPECT_EQ(again.exit_code, 1) << again.out;
}

}  // namespace
}  // namespace hookd::e2e
