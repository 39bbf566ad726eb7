// `hookd send` and `hookd replay` as thin clients of a running daemon's API: the payload a
// person types arrives byte for byte, a replay is a second (manual) attempt of the same message
// and is audited under the token's name, and every failure — missing flags, a payload that is
// not an object, a wrong token, an unknown application, a daemon that is not there — gets its
// documented exit code and a one-line reason, never a silent success.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/hookd_process.hpp"
#include "e2e/inbound_helpers.hpp"
#include "e2e/proxy_helpers.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {
namespace {

using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

// A payload whose spacing, key order and number spelling a re-serialization would change.
constexpr const char* kOddPayload = R"({"z": 1,  "a":[1.50, 2e3], "s":"\u00e9"})";

RunOutput remote(const HookdProcess& hookd, std::vector<std::string> args,
                 const std::string& token = HookdProcess::kToken) {
  args.insert(args.end(), {"--url", hookd.url(""), "--token", token});
  return hookd.run_command(args);
}

class RemoteCliE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    receiver_.set_path("/hook", ReceiverBehavior::respond(200));
    receiver_.start();
    ASSERT_TRUE(hookd_.start()) << hookd_.last_error();
    ApiClient api(hookd_);
    app_ = api.create_app("remote-cli");
    endpoint_ = api.create_endpoint(app_, receiver_.url("/hook"));
  }

  TestReceiver receiver_;
  HookdProcess hookd_;
  std::string app_;
  std::string endpoint_;
};

TEST_F(RemoteCliE2E, SendDeliversThePayloadBytesAndReplaySendsItAgainAsManual) {
  const auto sent =
      remote(hookd_, {"send", app_, "--event-type", "order.paid", "--data", kOddPayload});
  ASSERT_EQ(sent.exit_code, 0) << sent.err;
  const std::string msg_id = sent.out.substr(0, sent.out.find('\n'));
  ASSERT_EQ(msg_id.rfind("msg_", 0), 0u) << sent.out;
  ASSERT_TRUE(receiver_.wait_for_requests(1, std::chrono::seconds(20)));
  EXPECT_EQ(receiver_.requests().at(0).body, kOddPayload);
  EXPECT_EQ(receiver_.requests().at(0).header("webhook-id").value_or(""), msg_id);

  const auto replayed = remote(hookd_, {"replay", app_, msg_id, endpoint_, "--json"});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  EXPECT_TRUE(nlohmann::json::parse(replayed.out, nullptr, false).is_object()) << replayed.out;
  ASSERT_TRUE(receiver_.wait_for_requests(2, std::chrono::seconds(20)));
  EXPECT_EQ(receiver_.count_for_webhook_id(msg_id), 2u);
  EXPECT_EQ(receiver_.requests().at(1).body, kOddPayload);

  nlohmann::json attempts;
  ASSERT_TRUE(eventually([&] {
    attempts = hookd_.get("/api/v1/app/" + app_ + "/attempt/msg/" + msg_id).json()["data"];
    return attempts.size() == 2;
  }));
  std::multiset<int> triggers;
  for (const auto& a : attempts) triggers.insert(a.value("triggerType", -1));
  EXPECT_EQ(triggers, (std::multiset<int>{0, 1}));  // scheduled, then manual

  const auto audit = hookd_.get("/api/v1/hookd/audit?action=message.resend").json()["data"];
  ASSERT_EQ(audit.size(), 1u) << audit.dump();
  EXPECT_EQ(audit[0].value("targetId", ""), msg_id) << audit.dump();
  EXPECT_FALSE(audit[0].value("actor", "").empty()) << audit.dump();
}

TEST_F(RemoteCliE2E, SendTakesTheAddressFromTheEnvironmentAndTheJsonFlagPrintsTheAnswer) {
  ::setenv("HOOKD_URL", hookd_.url("").c_str(), 1);
  ::setenv("HOOKD_TOKEN", HookdProcess::kToken, 1);
  const auto sent = hookd_.run_command(
      {"send", app_, "--event-type", "a.b", "--data", "{}", "--event-id", "evt-1", "--json"});
  ::unsetenv("HOOKD_URL");
  ::unsetenv("HOOKD_TOKEN");
  ASSERT_EQ(sent.exit_code, 0) << sent.err;
  const auto answer = nlohmann::json::parse(sent.out, nullptr, false);
  EXPECT_EQ(answer.value("eventId", ""), "evt-1") << sent.out;
  EXPECT_EQ(answer.value("eventType", ""), "a.b") << sent.out;
}

TEST_F(RemoteCliE2E, EveryFailureHasItsExitCodeAndAReasonAndSendsNothing) {
  // Usage errors (2): no address, no payload, two payloads, a payload that is not an object.
  const auto no_url = hookd_.run_command({"send", app_, "--event-type", "a", "--data", "{}"});
  EXPECT_EQ(no_url.exit_code, 2);
  EXPECT_NE(no_url.err.find("--url"), std::string::npos) << no_url.err;
  EXPECT_EQ(remote(hookd_, {"send", app_, "--event-type", "a"}).exit_code, 2);
  EXPECT_EQ(remote(hookd_,
                   {"send", app_, "--event-type", "a", "--data", "{}", "--data-file", "/dev/null"})
                .exit_code,
            2);
  const auto array = remote(hookd_, {"send", app_, "--event-type", "a", "--data", "[1]"});
  EXPECT_EQ(array.exit_code, 2);
  EXPECT_NE(array.err.find("JSON object"), std::string::npos) << array.err;

  // hookd refuses (1): a wrong token, an unknown application, an unknown message.
  const auto bad_token =
      remote(hookd_, {"send", app_, "--event-type", "a", "--data", "{}"}, "not-the-token");
  EXPECT_EQ(bad_token.exit_code, 1);
  EXPECT_NE(bad_token.err.find("401"), std::string::npos) << bad_token.err;
  const auto no_app = remote(hookd_, {"send", "app_unknown", "--event-type", "a", "--data", "{}"});
  EXPECT_EQ(no_app.exit_code, 1);
  EXPECT_NE(no_app.err.find("404"), std::string::npos) << no_app.err;
  EXPECT_EQ(remote(hookd_, {"replay", app_, "msg_unknown", endpoint_}).exit_code, 1);
  // A hostile id stays one path segment: it names no other route.
  EXPECT_EQ(
      remote(hookd_, {"send", "../hookd/audit", "--event-type", "a", "--data", "{}"}).exit_code, 1);

  // Nothing there (1): a port nobody listens on (hookd's own, after it stopped).
  const std::string address = hookd_.url("");
  hookd_.stop();
  const auto gone = hookd_.run_command({"send", app_, "--event-type", "a", "--data", "{}", "--url",
                                        address, "--token", "t", "--timeout-ms", "3000"});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_NE(gone.err.find("could not be reached"), std::string::npos) << gone.err;
  EXPECT_EQ(receiver_.request_count(), 0u);
}

// `hookd inbox list|show|replay --url`: the same events as the API, `show` with the entity's
// state (the database form has none), and a replay that puts a dead event back, audited under
// the token's name.
TEST(RemoteInboxCliE2E, ListShowWithTheEntityStateAndReplayThroughTheApi) {
  TestReceiver app;
  app.set_default(ReceiverBehavior::respond(400));  // not retryable: dead at once
  app.start();
  const std::string keys = "entity_key = \"/data/contract_id\"\nstate = \"/data/status\"\n";
  HookdProcess hookd(
      inbound::config_with_sources(inbound::standard_source("esign", app.url("/hooks"), keys)));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const std::string body = R"({"data":{"contract_id":"c-9","status":"sent"}})";
  ASSERT_EQ(inbound::send_event(hookd, "esign", "evt_r1", body).status, 200);
  const auto dead = inbound::wait_for_status(hookd, "esign", "evt_r1", "dead");
  ASSERT_EQ(dead.value("status", ""), "dead") << dead.dump();
  const std::string id = dead.value("id", "");

  const auto table = remote(hookd, {"inbox", "list", "--source", "esign", "--status", "dead"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find(id + "\tesign\tevt_r1\tdead\t"), std::string::npos) << table.out;
  const auto none = remote(hookd, {"inbox", "list", "--source", "other", "--json"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_TRUE(nlohmann::json::parse(none.out)["data"].empty()) << none.out;

  // A dead event was never applied: its entity has no state yet.
  const auto dead_view = nlohmann::json::parse(remote(hookd, {"inbox", "show", id}).out);
  EXPECT_EQ(dead_view.value("status", ""), "dead") << dead_view.dump();
  EXPECT_FALSE(dead_view.contains("entity") && dead_view["entity"].contains("state") &&
               dead_view["entity"]["state"] == "sent")
      << dead_view.dump();

  EXPECT_EQ(remote(hookd, {"inbox", "replay", id, "--reason", " "}).exit_code, 2);
  app.set_default(ReceiverBehavior::respond(200));  // the application is fixed
  const auto replayed = remote(hookd, {"inbox", "replay", id, "--reason", "app fixed"});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  const auto forwarded = inbound::wait_for_status(hookd, "esign", "evt_r1", "processed");
  EXPECT_EQ(forwarded.value("status", ""), "processed") << forwarded.dump();
  const auto audit = hookd.get("/api/v1/hookd/audit?action=inbox.replay").json()["data"];
  ASSERT_EQ(audit.size(), 1u) << audit.dump();
  EXPECT_EQ(audit[0].value("reason", ""), "app fixed");

  const auto shown = remote(hookd, {"inbox", "show", id});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const auto event = nlohmann::json::parse(shown.out, nullptr, false);
  ASSERT_TRUE(event.is_object()) << shown.out;
  EXPECT_EQ(event.value("entityKey", ""), "c-9");
  ASSERT_TRUE(event.contains("entity")) << shown.out;
  EXPECT_EQ(event["entity"].value("state", ""), "sent") << shown.out;
  EXPECT_EQ(remote(hookd, {"inbox", "replay", id, "--reason", "again"}).exit_code, 1);
  EXPECT_EQ(remote(hookd, {"inbox", "show", "inb_unknown"}).exit_code, 1);
}

// `hookd dlq list|replay|discard --url`: the dead letters the API lists, a replay the daemon
// delivers, a discard, both all-or-nothing and audited under the token's name, whatever --actor
// says.
TEST(RemoteDlqCliE2E, ListReplayAndDiscardThroughTheApi) {
  TestReceiver receiver;
  receiver.set_path("/hook", ReceiverBehavior::respond(400));  // not retryable: dead at once
  receiver.start();
  HookdProcess hookd;
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ApiClient api(hookd);
  const std::string app = api.create_app("remote-dlq");
  const std::string endpoint = api.create_endpoint(app, receiver.url("/hook"));
  const std::string first = api.publish(app, "a.b", {{"n", 1}}).json().value("id", "");
  const std::string second = api.publish(app, "a.b", {{"n", 2}}).json().value("id", "");

  std::map<std::string, std::string> dead;  // message id -> delivery id
  ASSERT_TRUE(eventually([&] {
    const auto listed = remote(hookd, {"dlq", "list", "--app", app, "--json"});
    dead.clear();
    for (const auto& d : nlohmann::json::parse(listed.out, nullptr, false)) {
      dead[d.value("msgId", "")] = d.value("id", "");
    }
    return dead.size() == 2;
  }));
  const auto table = remote(hookd, {"dlq", "list", "--endpoint", endpoint, "--since", "0"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find(dead[first] + '\t' + first + '\t' + endpoint + "\t1\t400\t"),
            std::string::npos)
      << table.out;
  EXPECT_EQ(remote(hookd, {"dlq", "list", "--app", "app_unknown"}).exit_code, 1);

  // All or nothing: one unknown id, nothing changes.
  const auto mixed =
      remote(hookd, {"dlq", "replay", dead[first], "del_unknown", "--reason", "fixed"});
  EXPECT_EQ(mixed.exit_code, 1) << mixed.out;
  receiver.set_path("/hook", ReceiverBehavior::respond(200));
  const auto replayed =
      remote(hookd, {"dlq", "replay", dead[first], "--reason", "fixed", "--actor", "bob"});
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;
  EXPECT_EQ(replayed.out, "replayed 1 dead letter\n");
  ASSERT_TRUE(eventually([&] { return receiver.processed_for_webhook_id(first) == 1; }));
  const auto discarded =
      remote(hookd, {"dlq", "discard", dead[second], "--reason", "obsolete", "--actor", "bob"});
  ASSERT_EQ(discarded.exit_code, 0) << discarded.err;
  EXPECT_EQ(discarded.out, "discarded 1 dead letter\n");
  EXPECT_EQ(remote(hookd, {"dlq", "discard", dead[second], "--reason", "again"}).exit_code, 1);
  EXPECT_EQ(receiver.count_for_webhook_id(second), 1u);  // never delivered again

  for (const char* action : {"dlq.replay", "dlq.discard"}) {
    const auto audit =
        hookd.get(std::string("/api/v1/hookd/audit?action=") + action).json()["data"];
    ASSERT_EQ(audit.size(), 1u) << action << audit.dump();
    // The token's name (`serve --token` names it "cli"), never what the caller claims.
    EXPECT_EQ(audit[0].value("actor", ""), "cli") << audit.dump();
    EXPECT_EQ(audit[0].value("reason", ""),
              std::string(action) == "dlq.replay" ? "fixed" : "obsolete");
  }
}

// `hookd idem list|resolve --url`: an unknown outcome is listed and resolved through the API;
// the next call with the key gets the answer the person gave, the upstream is not called again.
TEST(RemoteIdemCliE2E, AnUnknownKeyIsListedAndResolvedThroughTheApi) {
  CountingUpstream upstream;
  HookdProcess hookd(proxy_config(upstream.url()));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ASSERT_EQ(proxied(hookd, "k-hang", "hang").status, 504);
  const auto listed = remote(hookd, {"idem", "list", "--state", "unknown", "--json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto keys = nlohmann::json::parse(listed.out, nullptr, false);
  ASSERT_TRUE(keys.is_array() && keys.size() == 1u) << listed.out;
  EXPECT_EQ(keys[0].value("key", ""), "k-hang");
  const std::string id = keys[0].value("id", "");
  const auto table = remote(hookd, {"idem", "list", "--proxy", "esign"});
  EXPECT_NE(table.out.find(id + "\tesign\tk-hang\tunknown\t"), std::string::npos) << table.out;

  EXPECT_EQ(remote(hookd, {"idem", "resolve", id, "--outcome", "completed"}).exit_code, 2);
  const auto resolved =
      remote(hookd, {"idem", "resolve", id, "--outcome", "completed", "--status", "201", "--body",
                     R"({"contract":"c_by_hand"})", "--reason", "checked upstream"});
  ASSERT_EQ(resolved.exit_code, 0) << resolved.err;
  EXPECT_EQ(nlohmann::json::parse(resolved.out).value("state", ""), "completed") << resolved.out;
  const auto again = proxied(hookd, "k-hang", "hang");
  EXPECT_EQ(again.status, 201) << again.body;
  EXPECT_EQ(again.body, R"({"contract":"c_by_hand"})");
  EXPECT_EQ(upstream.requests(), 1u) << "a resolved key was sent again";
  EXPECT_EQ(remote(hookd, {"idem", "resolve", id, "--outcome", "not_executed", "--reason", "x"})
                .exit_code,
            1);  // only an unknown key can be resolved
  const auto audit = hookd.get("/api/v1/hookd/audit?action=proxy_key.resolve").json()["data"];
  ASSERT_EQ(audit.size(), 1u) << audit.dump();
  EXPECT_EQ(audit[0].value("reason", ""), "checked upstream");
}

// `hookd reconcile run|list|show|resolve|runs --url`: the daemon's reconciler finds an entity
// left in "sent" that the provider says is "signed" (a state_mismatch); the CLI runs it, waits for the run to
// close, lists and shows the difference, and a person corrects the state through the API.
TEST(RemoteReconcileCliE2E, RunListShowAndResolveAStateMismatchThroughTheApi) {
  TestReceiver app;
  app.set_default(ReceiverBehavior::respond(200));
  app.start();
  TestReceiver provider;  // the contract is signed at the provider, "sent" here
  provider.set_handler([](const testing::ReceivedRequest&) {
    return ReceiverBehavior::respond(200, R"({"status":"signed"})");
  });
  provider.start();
  const std::string sources =
      inbound::standard_source("esign", app.url("/app"),
                               "entity_key = \"/contract\"\nstate = \"/state\"\n"
                               "terminal_states = [\"signed\"]") +
      "[source.reconcile]\ninterval = \"0\"\nstatus_url = \"" + provider.url("") +
      "/contracts/{entity}\"\nstatus_state = \"/status\"\nstuck_after = \"1s\"\n"
      "repair = \"manual\"\n";
  HookdProcess hookd(inbound::config_with_sources(sources));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  ASSERT_EQ(
      inbound::send_event(hookd, "esign", "c-1", R"({"contract":"c-1","state":"sent"})").status,
      200);
  ASSERT_TRUE(app.wait_for_requests(1, std::chrono::seconds(20)));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // past stuck_after

  EXPECT_EQ(remote(hookd, {"reconcile", "run", "nosuch"}).exit_code, 1);
  const auto ran = remote(hookd, {"reconcile", "run", "esign", "--json"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const auto run = nlohmann::json::parse(ran.out, nullptr, false);
  EXPECT_EQ(run.value("state", ""), "finished") << ran.out;  // waited for it to close
  EXPECT_EQ(run.value("differencesFound", -1), 1) << ran.out;

  const auto listed = remote(hookd, {"reconcile", "list", "--state", "open", "--json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto open = nlohmann::json::parse(listed.out, nullptr, false);
  ASSERT_TRUE(open.is_array() && open.size() == 1u) << listed.out;
  EXPECT_EQ(open[0].value("kind", ""), "state_mismatch");
  const std::string id = open[0].value("id", "");
  const auto table = remote(hookd, {"reconcile", "list", "--source", "esign"});
  EXPECT_NE(table.out.find(id + "\tesign\tstate_mismatch\topen\t"), std::string::npos) << table.out;
  const auto shown = remote(hookd, {"reconcile", "show", id});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("signed"), std::string::npos) << shown.out;

  EXPECT_EQ(remote(hookd,
                   {"reconcile", "resolve", id, "--action", "correct_state", "--reason", "checked"})
                .exit_code,
            1);  // correct_state needs --state: hookd says so (422)
  const auto resolved = remote(hookd, {"reconcile", "resolve", id, "--action", "correct_state",
                                       "--state", "signed", "--reason", "provider says signed"});
  ASSERT_EQ(resolved.exit_code, 0) << resolved.err;
  const auto after = remote(hookd, {"reconcile", "list", "--state", "open", "--json"});
  EXPECT_TRUE(nlohmann::json::parse(after.out, nullptr, false).empty()) << after.out;
  const auto runs = remote(hookd, {"reconcile", "runs", "--source", "esign"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_NE(runs.out.find(run.value("id", "") + "\tesign\tapi\t"), std::string::npos) << runs.out;
  const auto audit =
      hookd.get("/api/v1/hookd/audit?action=reconcile.difference.resolve").json()["data"];
  ASSERT_EQ(audit.size(), 1u) << audit.dump();
  EXPECT_EQ(audit[0].value("reason", ""), "provider says signed");
}

}  // namespace
}  // namespace hookd::e2e
