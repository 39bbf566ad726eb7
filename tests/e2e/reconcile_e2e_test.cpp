// Reconciliation end to end (A28, issue 15): a sender hookd delivers to a receiver hookd
// through a lossy link (a TestReceiver that answers the sender 200 but forwards only some
// webhooks); the receiver's reconciler walks the sender's feed for that endpoint (with the
// endpoint's own feed token) and forwards every lost callback to the application exactly
// once, with the bytes the sender published, while late and repeated webhooks for the same
// events race with it and are deduplicated.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/inbound_helpers.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using namespace hookd::e2e::inbound;
using hookd::testing::ReceivedRequest;
using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

constexpr int kReconcileMessages = 40;

// The payload of message n, with whitespace and key order a parser would normalise.
std::string payload_of(int n) {
  return "{ \"n\" : " + std::to_string(n) + ",\n  \"order\":\"o-" + std::to_string(n) +
         "\", \"amount\": 1.50e+2, \"a\" : [1, 2.50] }";
}

// The message number in a delivered body (-1 when it has none).
int number_in(const std::string& body) {
  const auto json = nlohmann::json::parse(body, nullptr, false);
  return json.is_object() && json.contains("n") ? json["n"].get<int>() : -1;
}

// The link between the two hookds. Messages with n % 4 == 1 are lost (answered 200, never
// forwarded); n % 4 == 2 are late (answered 200, forwarded only when release_late() runs);
// the rest go straight through to the receiver's /in/<source>, whose answer is passed back.
class LossyLink {
 public:
  void attach(TestReceiver& receiver) {
    receiver.set_handler([this](const ReceivedRequest& r) { return on_request(r); });
  }
  void forward_to(std::string url) { target_ = std::move(url); }

  // Sends the held webhooks now, as their sender would have: `lost` too (a late retry).
  std::vector<long> release(bool lost) {
    std::vector<ReceivedRequest> held;
    {
      std::lock_guard lock(mutex_);
      held = lost ? lost_ : late_;
    }
    std::vector<long> statuses;
    for (const auto& r : held) statuses.push_back(pass_on(r).status);
    return statuses;
  }
  std::set<std::string> ids(bool lost) const {
    std::lock_guard lock(mutex_);
    std::set<std::string> out;
    for (const auto& r : lost ? lost_ : late_) out.insert(r.header("webhook-id").value_or(""));
    return out;
  }
  int seen() const { return seen_.load(); }

 private:
  HttpReply pass_on(const ReceivedRequest& r) const {
    HeaderList headers{{"Content-Type", "application/json"}};
    for (const char* name : {"webhook-id", "webhook-timestamp", "webhook-signature"}) {
      headers.emplace_back(name, r.header(name).value_or(""));
    }
    return http_request("POST", target_, r.body, headers);
  }

  ReceiverBehavior on_request(const ReceivedRequest& r) {
    const int n = number_in(r.body);
    {
      std::lock_guard lock(mutex_);
      const auto id = r.header("webhook-id").value_or("");
      if (!first_seen_.insert(id).second) return ReceiverBehavior::respond(200);  // a retry
      if (n % 4 == 1 || n % 4 == 2) {
        (n % 4 == 1 ? lost_ : late_).push_back(r);
        ++seen_;
        return ReceiverBehavior::respond(200);
      }
    }
    const auto reply = pass_on(r);
    ++seen_;
    return ReceiverBehavior::respond(reply.status == 0 ? 503 : static_cast<int>(reply.status));
  }

  std::string target_;
  mutable std::mutex mutex_;
  std::set<std::string> first_seen_;
  std::vector<ReceivedRequest> lost_;
  std::vector<ReceivedRequest> late_;
  std::atomic<int> seen_{0};
};

// The forwards the application received, by event id, and their bodies.
std::map<std::string, std::vector<std::string>> forwards_by_event(const TestReceiver& app) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& r : app.requests()) {
    out[r.header("X-Hookd-Event-Id").value_or("")].push_back(r.body);
  }
  return out;
}

// Polls GET /reconcile/runs/{id} until the run is no longer running; its last view.
nlohmann::json wait_for_run(const HookdProcess& hookd, const std::string& run_id) {
  nlohmann::json run;
  eventually(
      [&] {
        run = hookd.get("/api/v1/hookd/reconcile/runs/" + run_id).json();
        return run.is_object() && run.value("state", "") != "running";
      },
      30'000ms, 50ms);
  return run;
}

nlohmann::json start_run(const HookdProcess& hookd, const std::string& source) {
  const auto reply = hookd.post("/api/v1/hookd/reconcile/" + source + "/run", "{}");
  EXPECT_EQ(reply.status, 202) << reply.body;
  return reply.json();
}

std::string receiver_config(const std::string& app_url, const std::string& feed_url,
                            const std::string& feed_token) {
  return config_with_sources(standard_source("orders", app_url) +
                             "[source.reconcile]\ninterval = \"0\"\nfeed_url = \"" + feed_url +
                             "\"\nfeed_token = \"" + feed_token + "\"\n");
}

TEST(ReconcileE2E, LostCallbacksAreFoundInTheSendersFeedAndForwardedOnce) {  // A28
  TestReceiver app;
  app.start();
  TestReceiver link_receiver;
  LossyLink link;
  link.attach(link_receiver);
  link_receiver.start();

  HookdProcess sender;
  ASSERT_TRUE(sender.start()) << sender.last_error();
  ApiClient api(sender);
  const auto app_id = api.create_app("shop");
  const auto endpoint_id = api.create_endpoint(
      app_id, nlohmann::json{{"url", link_receiver.url("/in")}, {"secret", kSenderSecret}});
  const auto token =
      sender.get("/api/v1/hookd/app/" + app_id + "/endpoint/" + endpoint_id + "/feed-token");
  ASSERT_EQ(token.status, 200) << token.body;
  const auto feed_url = sender.url("/api/v1/hookd/feed/" + endpoint_id);

  HookdProcess receiver(
      receiver_config(app.url("/app"), feed_url, token.json().value("token", "")));
  ASSERT_TRUE(receiver.start()) << receiver.last_error();
  link.forward_to(receiver.url("/in/orders"));

  std::map<std::string, int> number_of;  // message id -> n
  for (int n = 0; n < kReconcileMessages; ++n) {
    const auto reply =
        sender.request("POST", "/api/v1/app/" + app_id + "/msg",
                       R"({"eventType":"order.paid","payload":)" + payload_of(n) + "}");
    ASSERT_EQ(reply.status, 202) << reply.body;
    number_of[reply.json().value("id", "")] = n;
  }
  ASSERT_TRUE(eventually([&] { return link.seen() == kReconcileMessages; }, 30'000ms))
      << link.seen() << "\n"
      << sender.stderr_text();
  const auto through = kReconcileMessages / 2;  // n % 4 == 0 or 3
  ASSERT_TRUE(app.wait_for_requests(through, 30s)) << receiver.stderr_text();

  // The run races with the late webhooks of the same events.
  const auto run = start_run(receiver, "orders");
  std::thread late([&] {
    for (auto status : link.release(false)) EXPECT_EQ(status, 200);
  });
  const auto finished = wait_for_run(receiver, run.value("id", ""));
  late.join();
  ASSERT_EQ(finished.value("state", ""), "finished") << finished.dump();
  EXPECT_GE(finished.value("itemsRead", 0), kReconcileMessages);
  const int found = finished.value("differencesFound", -1);
  EXPECT_GE(found, kReconcileMessages / 4);  // every lost one; late ones only if the run was first
  EXPECT_LE(found, kReconcileMessages / 2);
  EXPECT_EQ(finished.value("repaired", -1), found);

  // The lost webhooks arrive after all (a sender's retry): duplicates, forwarded no more.
  for (auto status : link.release(true)) EXPECT_EQ(status, 200);

  ASSERT_TRUE(app.wait_for_requests(kReconcileMessages, 30s)) << receiver.stderr_text();
  const auto differences =
      receiver.get("/api/v1/hookd/reconcile/differences?source=orders&kind=missing&limit=250")
          .json();
  ASSERT_EQ(differences["data"].size(), static_cast<std::size_t>(found)) << differences.dump();
  const auto lost = link.ids(true);
  const auto late_ids = link.ids(false);
  std::set<std::string> recorded;
  for (const auto& d : differences["data"]) {
    EXPECT_EQ(d.value("state", ""), "repaired") << d.dump();
    EXPECT_EQ(d["evidence"].value("request", "").rfind("GET " + feed_url, 0), 0u) << d.dump();
    EXPECT_EQ(d["evidence"].value("status", 0), 200);
    recorded.insert(d.value("eventId", ""));
  }
  for (const auto& id : lost) EXPECT_TRUE(recorded.contains(id)) << id;
  for (const auto& id : recorded) EXPECT_TRUE(lost.contains(id) || late_ids.contains(id)) << id;

  // A second run finds nothing new; then every event reached the application exactly once,
  // with the bytes the sender published.
  const auto again = wait_for_run(receiver, start_run(receiver, "orders").value("id", ""));
  EXPECT_EQ(again.value("state", ""), "finished") << again.dump();
  EXPECT_EQ(again.value("differencesFound", -1), 0) << again.dump();
  const auto forwards = forwards_by_event(app);
  ASSERT_EQ(forwards.size(), static_cast<std::size_t>(kReconcileMessages));
  for (const auto& [message_id, n] : number_of) {
    ASSERT_TRUE(forwards.contains(message_id)) << message_id;
    ASSERT_EQ(forwards.at(message_id).size(), 1u) << message_id << " n=" << n;
    EXPECT_EQ(forwards.at(message_id)[0], payload_of(n)) << message_id;
  }
  EXPECT_EQ(inbox_list(receiver, "&source=orders")["data"].size(),
            static_cast<std::size_t>(kReconcileMessages));
  EXPECT_EQ(metric_value(receiver, R"(hookd_reconcile_runs_total{source="orders",result="ok"})"),
            2);
  EXPECT_EQ(metric_value(receiver, R"(hookd_reconcile_differences{source="orders",kind="missing",)"
                                   R"(state="repaired"})"),
            found);
}

// A source whose contracts' states are checked at `provider_url`/contracts/{entity} once
// they are 1 s without change; `repair` auto or manual.
std::string esign_source(const std::string& name, const std::string& app_url,
                         const std::string& provider_url, const std::string& repair) {
  return standard_source(name, app_url,
                         "entity_key = \"/contract\"\nstate = \"/state\"\n"
                         "terminal_states = [\"signed\", \"voided\"]") +
         "[source.reconcile]\ninterval = \"0\"\nstatus_url = \"" + provider_url +
         "/contracts/{entity}\"\nstatus_state = \"/status\"\nstuck_after = \"1s\"\n"
         "repair = \"" +
         repair + "\"\n\n";
}

std::string contract_event(const std::string& contract, const std::string& state) {
  return R"({"contract":")" + contract + R"(","state":")" + state + R"("})";
}

// The differences of one source, by entity.
std::map<std::string, nlohmann::json> differences_by_entity(const HookdProcess& hookd,
                                                            const std::string& source) {
  std::map<std::string, nlohmann::json> out;
  const auto list =
      hookd.get("/api/v1/hookd/reconcile/differences?limit=250&source=" + source).json();
  for (const auto& d : list["data"]) out[d.value("entityKey", "")] = d;
  return out;
}

TEST(ReconcileE2E, StuckEntitiesAreCheckedAndRepairedOrQueuedForAPerson) {  // A29, A30
  TestReceiver app;
  app.start();
  TestReceiver provider;  // the provider's state of each contract
  const std::map<std::string, std::string> remote = {
      {"/contracts/c-1", "signed"}, {"/contracts/c-2", "viewed"}, {"/contracts/c-3", "sent"}};
  provider.set_handler([&remote](const ReceivedRequest& r) {
    const auto it = remote.find(r.path);
    return it == remote.end()
               ? ReceiverBehavior::respond(404)
               : ReceiverBehavior::respond(200, R"({"status":")" + it->second + R"("})");
  });
  provider.start();
  HookdProcess hookd(config_with_sources(
      esign_source("esign", app.url("/app"), provider.url(""), "auto") +
      esign_source("esign_manual", app.url("/manual"), provider.url(""), "manual")));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();

  for (const auto* source : {"esign", "esign_manual"}) {
    for (const auto* contract : {"c-1", "c-2", "c-3"}) {
      const auto id = std::string(source) + "-" + contract;
      ASSERT_EQ(send_event(hookd, source, id, contract_event(contract, "sent")).status, 200);
      EXPECT_EQ(wait_for_status(hookd, source, id, "processed").value("status", ""), "processed");
    }
  }
  ASSERT_TRUE(app.wait_for_requests(6, 20s));
  std::this_thread::sleep_for(1500ms);  // past stuck_after (1 s) for every contract

  for (const auto* source : {"esign", "esign_manual"}) {
    const auto run = wait_for_run(hookd, start_run(hookd, source).value("id", ""));
    ASSERT_EQ(run.value("state", ""), "finished") << run.dump() << hookd.stderr_text();
    EXPECT_EQ(run.value("differencesFound", -1), 2) << run.dump();  // c-1 and c-2
  }
  // auto: the terminal remote state is applied (a synthesized event forwarded); a
  // non-terminal one waits for a person. manual: both wait.
  const auto automatic = differences_by_entity(hookd, "esign");
  ASSERT_EQ(automatic.size(), 2u);
  EXPECT_EQ(automatic.at("c-1").value("state", ""), "repaired");
  EXPECT_EQ(automatic.at("c-1").value("kind", ""), "state_mismatch");
  EXPECT_EQ(automatic.at("c-1").value("localState", ""), "sent");
  EXPECT_EQ(automatic.at("c-1").value("remoteState", ""), "signed");
  EXPECT_EQ(automatic.at("c-1")["evidence"].value("request", ""),
            "GET " + provider.url("/contracts/c-1"));
  EXPECT_EQ(automatic.at("c-1")["evidence"].value("excerpt", ""), R"({"status":"signed"})");
  EXPECT_EQ(automatic.at("c-2").value("state", ""), "open");
  const auto manual = differences_by_entity(hookd, "esign_manual");
  ASSERT_EQ(manual.size(), 2u);
  EXPECT_EQ(manual.at("c-1").value("state", ""), "open");
  EXPECT_EQ(manual.at("c-2").value("state", ""), "open");

  auto forwarded_state = [&app](const std::string& path, const std::string& contract) {
    std::vector<std::string> states;
    for (const auto& r : app.requests()) {
      const auto body = nlohmann::json::parse(r.body, nullptr, false);
      if (r.path == path && body.value("contract", "") == contract) {
        states.push_back(body.value("state", ""));
      }
    }
    return states;
  };
  ASSERT_TRUE(eventually([&] { return forwarded_state("/app", "c-1").size() == 2; }));
  EXPECT_EQ(forwarded_state("/app", "c-1"), (std::vector<std::string>{"sent", "signed"}));
  EXPECT_EQ(forwarded_state("/manual", "c-1"), (std::vector<std::string>{"sent"}));

  // A person repairs the manual one: forwarded once, audited with who, why, before and after.
  const auto id = manual.at("c-1").value("id", "");
  const auto body = R"({"action":"repair","reason":"provider shows it signed"})";
  const auto resolved = hookd.post("/api/v1/hookd/reconcile/differences/" + id + "/resolve", body);
  ASSERT_EQ(resolved.status, 200) << resolved.body;
  EXPECT_EQ(resolved.json().value("state", ""), "repaired");
  EXPECT_EQ(hookd.post("/api/v1/hookd/reconcile/differences/" + id + "/resolve", body).status,
            409);  // once
  ASSERT_TRUE(eventually([&] { return forwarded_state("/manual", "c-1").size() == 2; }));
  const auto audit = hookd.get("/api/v1/hookd/audit?action=reconcile.difference.resolve").json();
  ASSERT_EQ(audit["data"].size(), 1u) << audit.dump();
  EXPECT_EQ(audit["data"][0].value("reason", ""), "provider shows it signed");
  EXPECT_FALSE(audit["data"][0].value("actor", "").empty()) << audit.dump();
  EXPECT_EQ(audit["data"][0].value("targetId", ""), id);
  EXPECT_FALSE(audit["data"][0]["before"].is_null()) << audit.dump();
  EXPECT_FALSE(audit["data"][0]["after"].is_null()) << audit.dump();

  // A person corrects c-2's state; the next run finds no difference left.
  const auto c2 = automatic.at("c-2").value("id", "");
  const auto corrected = hookd.post(
      "/api/v1/hookd/reconcile/differences/" + c2 + "/resolve",
      R"({"action":"correct_state","state":"viewed","reason":"checked with the provider"})");
  ASSERT_EQ(corrected.status, 200) << corrected.body;
  EXPECT_EQ(corrected.json().value("state", ""), "resolved");
  std::this_thread::sleep_for(1500ms);
  const auto again = wait_for_run(hookd, start_run(hookd, "esign").value("id", ""));
  EXPECT_EQ(again.value("state", ""), "finished") << again.dump();
  EXPECT_EQ(again.value("differencesFound", -1), 0) << again.dump();  // c-1 signed, c-2 viewed
}

TEST(ReconcileE2E, AParkedEventWhoseDependencyNeverComesIsHandedOffAndForwarded) {  // A21
  TestReceiver app;
  app.start();
  TestReceiver provider;  // its status is never asked: nothing is stuck for 30 minutes
  provider.start();
  HookdProcess hookd(config_with_sources(
      standard_source("esign", app.url("/app"),
                      "entity_key = \"/contract\"\ndepends_on = \"/after\"\n"
                      "state = \"/step\"\npark_timeout = \"1s\"") +
      "[source.reconcile]\ninterval = \"0\"\nstatus_url = \"" +
      provider.url("/contracts/{entity}") + "\"\nstatus_state = \"/status\"\n"));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const std::string body = R"({"contract":"c-9","step":"sign","after":"evt-create"})";
  ASSERT_EQ(send_event(hookd, "esign", "evt-sign", body).status, 200);
  EXPECT_EQ(wait_for_status(hookd, "esign", "evt-sign", "parked").value("status", ""), "parked");
  // An event of the same contract behind it waits in the entity's queue.
  const std::string behind = R"({"contract":"c-9","step":"archive"})";
  ASSERT_EQ(send_event(hookd, "esign", "evt-archive", behind).status, 200);

  // Past park_timeout the forwarder flags it once: one open parked_timeout difference.
  nlohmann::json flagged;
  ASSERT_TRUE(eventually([&] {
    flagged =
        hookd.get("/api/v1/hookd/reconcile/differences?source=esign&kind=parked_timeout").json();
    return flagged.is_object() && flagged["data"].size() == 1;
  })) << flagged.dump();
  EXPECT_EQ(flagged["data"][0].value("state", ""), "open");
  EXPECT_EQ(flagged["data"][0].value("eventId", ""), "evt-sign");
  EXPECT_EQ(app.request_count(), 0u);

  // The run finds no dependency (no feed): the event is forwarded, saying what is missing.
  const auto run = wait_for_run(hookd, start_run(hookd, "esign").value("id", ""));
  ASSERT_EQ(run.value("state", ""), "finished") << run.dump();
  ASSERT_TRUE(app.wait_for_requests(2, 20s)) << hookd.stderr_text();
  const auto forward = app.requests().front();
  EXPECT_EQ(forward.body, body);
  EXPECT_EQ(forward.header("hookd-dependency-missing").value_or(""), "evt-create");
  // ... and the one behind it follows, in order, not held forever.
  EXPECT_EQ(app.requests()[1].body, behind);
  EXPECT_FALSE(app.requests()[1].header("hookd-dependency-missing").has_value());
  EXPECT_EQ(wait_for_status(hookd, "esign", "evt-sign", "processed").value("status", ""),
            "processed");
  const auto after =
      hookd.get("/api/v1/hookd/reconcile/differences?source=esign&kind=parked_timeout").json();
  ASSERT_EQ(after["data"].size(), 1u) << after.dump();  // still one: flagged once
  // Released by the reconciler, and still open for a person: the gap is real.
  EXPECT_EQ(after["data"][0].value("state", ""), "open") << after.dump();
  const auto shown =
      hookd.get("/api/v1/hookd/reconcile/differences/" + after["data"][0].value("id", "")).json();
  ASSERT_EQ(shown["actions"].size(), 1u) << shown.dump();
  EXPECT_EQ(shown["actions"][0].value("action", ""), "release");
  EXPECT_EQ(shown["actions"][0].value("by", ""), "auto");

  // The dependency turns up late: forwarded on its own, the released event not again.
  ASSERT_EQ(
      send_event(hookd, "esign", "evt-create", R"({"contract":"c-9","step":"create"})").status,
      200);
  ASSERT_TRUE(app.wait_for_requests(3, 20s));
  EXPECT_EQ(wait_for_run(hookd, start_run(hookd, "esign").value("id", "")).value("state", ""),
            "finished");
  EXPECT_EQ(forwards_of(app, "evt-sign"), 1u);
  EXPECT_EQ(forwards_of(app, "evt-create"), 1u);
  EXPECT_EQ(forwards_of(app, "evt-archive"), 1u);
}

// A provider's paged feed of `total` events, `per_page` a page, each page answered after
// `delay`: {"data":[{"id","payload"}...],"iterator":"<next>","done":bool}.
class PagedFeed {
 public:
  PagedFeed(int total, int per_page, std::chrono::milliseconds delay)
      : total_(total), per_page_(per_page), delay_(delay) {}
  void attach(TestReceiver& receiver) {
    receiver.set_handler([this](const ReceivedRequest& r) { return page(r); });
  }
  int pages_served() const { return served_.load(); }
  static std::string body_of(int n) {
    return R"({"contract":"k-)" + std::to_string(n) + R"(", "n": )" + std::to_string(n) + "}";
  }

 private:
  ReceiverBehavior page(const ReceivedRequest& r) {
    int from = 0;
    if (auto at = r.target.find("iterator="); at != std::string::npos) {
      from = std::stoi(r.target.substr(at + 9));
    }
    std::string items;
    for (int n = from; n < std::min(total_, from + per_page_); ++n) {
      if (!items.empty()) items += ",";
      items += R"({"id":"p-)" + std::to_string(n) + R"(","payload":)" + body_of(n) + "}";
    }
    const int next = std::min(total_, from + per_page_);
    ++served_;
    return ReceiverBehavior::respond(200,
                                     R"({"data":[)" + items + R"(],"iterator":")" +
                                         std::to_string(next) + R"(","done":)" +
                                         (next >= total_ ? "true" : "false") + "}",
                                     {{"Content-Type", "application/json"}})
        .after(delay_);
  }

  const int total_;
  const int per_page_;
  const std::chrono::milliseconds delay_;
  std::atomic<int> served_{0};
};

TEST(ReconcileE2E, AKilledRunIsClosedAsInterruptedAndTheNextRunFinishesWithoutDuplicates) {
  constexpr int kItems = 60;
  TestReceiver app;
  app.start();
  TestReceiver provider;
  PagedFeed feed(kItems, 10, 300ms);
  feed.attach(provider);
  provider.start();
  HookdProcess hookd(config_with_sources(standard_source("esign", app.url("/app")) +
                                         "[source.reconcile]\ninterval = \"0\"\n" +
                                         "feed_url = \"" + provider.url("/feed") + "\"\n"));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();

  const auto first = start_run(hookd, "esign").value("id", "");
  ASSERT_TRUE(eventually([&] { return feed.pages_served() >= 3; }, 20'000ms));
  hookd.kill9();  // mid-walk: some pages applied, one in flight
  ASSERT_TRUE(hookd.start()) << hookd.last_error();

  const auto second = wait_for_run(hookd, start_run(hookd, "esign").value("id", ""));
  ASSERT_EQ(second.value("state", ""), "finished") << second.dump();
  const auto killed = hookd.get("/api/v1/hookd/reconcile/runs/" + first).json();
  EXPECT_EQ(killed.value("state", ""), "failed") << killed.dump();
  EXPECT_NE(killed.value("error", "").find("interrupted"), std::string::npos) << killed.dump();

  // Every item is in the inbox once, recorded once, and reached the app (at least once: an
  // event forwarded right before the kill may be forwarded again, with the same
  // Idempotency-Key).
  EXPECT_EQ(inbox_list(hookd, "&source=esign")["data"].size(), static_cast<std::size_t>(kItems));
  const auto differences =
      hookd.get("/api/v1/hookd/reconcile/differences?source=esign&limit=250").json();
  EXPECT_EQ(differences["data"].size(), static_cast<std::size_t>(kItems));
  std::set<std::string> subjects;
  for (const auto& d : differences["data"]) subjects.insert(d.value("subject", ""));
  EXPECT_EQ(subjects.size(), static_cast<std::size_t>(kItems));
  ASSERT_TRUE(eventually([&] { return forwards_by_event(app).size() == kItems; }))
      << forwards_by_event(app).size();
  for (const auto& [event_id, bodies] : forwards_by_event(app)) {
    const int n = std::stoi(event_id.substr(2));
    for (const auto& body : bodies) EXPECT_EQ(body, PagedFeed::body_of(n)) << event_id;
  }
  EXPECT_LE(app.request_count(), static_cast<std::size_t>(kItems) + 10);
}

}  // namespace
}  // namespace hookd::e2e
