// `hookd dlq` against a running daemon: deliveries a receiver refuses with 400 are dead at
// once; `hookd dlq list` shows them (A04: visible through the CLI), `hookd dlq replay` makes
// the running daemon deliver one again once the receiver is fixed, `hookd dlq discard`
// takes another off the list for good, and both are in the audit log with actor and reason
// (A05). A blank --reason is refused (exit 2) before anything changes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/hookd_process.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

// `hookd <args> --config ... --database ...` on the daemon's own files.
RunOutput dlq(const HookdProcess& hookd, std::vector<std::string> args) {
  args.insert(args.begin(), "dlq");
  args.insert(args.end(),
              {"--config", hookd.config_file().string(), "--database", hookd.database().string()});
  return hookd.run_command(args);
}

// The dead letters `hookd dlq list --json` prints, by message id → delivery id.
std::map<std::string, std::string> listed(const HookdProcess& hookd) {
  const auto result = dlq(hookd, {"list", "--json"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::map<std::string, std::string> by_message;
  const auto rows = nlohmann::json::parse(result.out, nullptr, false);
  if (!rows.is_array()) return by_message;
  for (const auto& row : rows) by_message[row.value("msgId", "")] = row.value("id", "");
  return by_message;
}

nlohmann::json audit_of(const HookdProcess& hookd, const std::string& action) {
  const auto reply = hookd.get("/api/v1/hookd/audit?action=" + action);
  EXPECT_EQ(reply.status, 200) << reply.body;
  return reply.json()["data"];
}

TEST(DlqCliE2E, A04_A05_ListReplayAndDiscardDeadLettersWhileTheDaemonRuns) {
  TestReceiver receiver;
  receiver.set_path("/hook", ReceiverBehavior::respond(400));  // not retryable: dead at once
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("dlq-cli");
  const std::string endpoint = api.create_endpoint(app, receiver.url("/hook"));
  const std::string to_replay = api.publish(app, "order.paid", {{"n", 1}}).json().value("id", "");
  const std::string to_discard = api.publish(app, "order.paid", {{"n", 2}}).json().value("id", "");

  std::map<std::string, std::string> dead;
  ASSERT_TRUE(eventually([&] {
    dead = listed(hookd);
    return dead.size() == 2;
  })) << hookd.stderr_text();
  ASSERT_TRUE(dead.contains(to_replay) && dead.contains(to_discard));
  const auto table = dlq(hookd, {"list", "--endpoint", endpoint});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find(dead[to_replay] + '\t' + to_replay + '\t' + endpoint + "\t1\t400\t"),
            std::string::npos)
      << table.out;

  // No reason, no change: usage errors (the inbox's replay too).
  EXPECT_EQ(dlq(hookd, {"replay", dead[to_replay], "--reason", "  "}).exit_code, 2);
  EXPECT_EQ(hookd
                .run_command({"inbox", "replay", "inb_x", "--reason", "", "--database",
                              hookd.database().string()})
                .exit_code,
            2);
  EXPECT_EQ(listed(hookd).size(), 2u);

  receiver.set_path("/hook", ReceiverBehavior::respond(200));  // the receiver is fixed
  const auto replayed = dlq(
      hookd, {"replay", dead[to_replay], "--reason", "receiver fixed its 400", "--actor", "ops"});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  EXPECT_EQ(replayed.out, "replayed 1 dead letter\n");
  ASSERT_TRUE(eventually([&] { return receiver.processed_for_webhook_id(to_replay) == 1; }))
      << hookd.stderr_text();
  EXPECT_EQ(receiver.count_for_webhook_id(to_replay), 2u);  // refused once, then delivered

  const auto discarded = dlq(hookd, {"discard", dead[to_discard], "--reason", "customer gone"});
  ASSERT_EQ(discarded.exit_code, 0) << discarded.err;
  EXPECT_EQ(discarded.out, "discarded 1 dead letter\n");
  EXPECT_TRUE(listed(hookd).empty());
  const auto again = dlq(hookd, {"discard", dead[to_discard], "--reason", "twice"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find(dead[to_discard] + ": not dead (status discarded)"), std::string::npos)
      << again.err;
  EXPECT_EQ(receiver.count_for_webhook_id(to_discard), 1u);  // never sent again

  const auto replays = audit_of(hookd, "dlq.replay");
  ASSERT_EQ(replays.size(), 1u) << replays.dump();
  EXPECT_EQ(replays[0].value("actor", ""), "ops");
  EXPECT_EQ(replays[0].value("reason", ""), "receiver fixed its 400");
  EXPECT_EQ(replays[0].value("targetId", ""), dead[to_replay]);
  EXPECT_FALSE(replays[0]["before"].is_null());
  EXPECT_NE(replays[0]["before"].dump(), replays[0]["after"].dump());
  const auto discards = audit_of(hookd, "dlq.discard");
  ASSERT_EQ(discards.size(), 1u) << discards.dump();
  EXPECT_EQ(discards[0].value("actor", ""), "cli");
  EXPECT_EQ(discards[0].value("reason", ""), "customer gone");
  EXPECT_EQ(discards[0].value("targetId", ""), dead[to_discard]);
}

}  // namespace
}  // namespace hookd::e2e
