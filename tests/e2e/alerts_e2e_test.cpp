// A41: failures a person must see reach an operator as signed operational webhooks — through
// the real daemon, with the outbound machinery (the alert receiver's first 503 is retried).
// Scripted failures: a delivery dead-lettered after its retries, one refused with 401, an
// endpoint disabled by a person, an Idempotency-Key mismatch and an unknown outcome at the
// gateway, a reconciliation difference, a parked event past park_timeout. Each alert type
// arrives (verified with the Standard Webhooks verifier and the [alerts] secret), is counted in
// hookd_alerts_raised_total, is logged, carries no secret or token and masks personal data;
// `types` limits what is sent; the alerts application's own dead letter raises no new alert.
#include <gtest/gtest.h>

#include <ctime>
#include <map>
#include <set>
#include <string>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/inbound_helpers.hpp"
#include "e2e/proxy_helpers.hpp"
#include "hookd/signing.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using inbound::kForwardSecret;
using inbound::send_event;
using inbound::standard_source;
using testing::ReceivedRequest;
using testing::ReceiverBehavior;
using testing::TestReceiver;

const std::string kAlertSecret = "whsec_QWxlcnRTZWNyZXRGb3JUZXN0czAxMjM0NTY3";
const std::string kEmail = "jane.roe@example.com";

std::string alerts_config(const std::string& alerts_url, const std::string& types,
                          const std::string& extra) {
  return test_config({{"max_attempts", "2"}, {"schedule", R"(["100ms"])"}}) +
         "\n[alerts]\nurl = \"" + alerts_url + "\"\nsecret = \"" + kAlertSecret +
         "\"\ntypes = " + types + "\n\n" + extra;
}

// The alerts a receiver got, by type (bodies parsed), each verified with the alert secret.
std::multimap<std::string, nlohmann::json> verified_alerts(const TestReceiver& receiver) {
  auto verifier = Verifier::create(SchemeOptions{}, std::vector<std::string>{kAlertSecret});
  EXPECT_TRUE(verifier);
  std::multimap<std::string, nlohmann::json> out;
  std::set<std::string> ids;
  for (const auto& r : receiver.requests()) {
    const auto ok = verifier->verify(headers_of(r), r.body, std::time(nullptr));
    EXPECT_TRUE(ok) << r.body;
    if (!ok) continue;
    // A retried alert arrives again with the same webhook-id: count it once.
    if (!ids.insert(r.header("webhook-id").value_or("")).second) continue;
    const auto body = nlohmann::json::parse(r.body);
    out.emplace(body.value("type", ""), body);
  }
  return out;
}

TEST(AlertsE2E, A41_EveryKindOfFailureReachesTheOperatorSignedAndRetried) {
  TestReceiver alerts;
  std::atomic<int> alert_requests{0};
  alerts.set_handler([&alert_requests](const ReceivedRequest&) {
    return ReceiverBehavior::respond(++alert_requests == 1 ? 503 : 200);  // first one retried
  });
  alerts.start();
  TestReceiver failing;
  failing.set_handler([](const ReceivedRequest&) { return ReceiverBehavior::respond(503); });
  failing.start();
  TestReceiver refusing;
  refusing.set_handler([](const ReceivedRequest&) { return ReceiverBehavior::respond(401); });
  refusing.start();
  TestReceiver app;
  app.start();
  TestReceiver provider;  // the contract is signed at the provider, "sent" here
  provider.set_handler([](const ReceivedRequest&) {
    return ReceiverBehavior::respond(200, R"({"status":"signed"})");
  });
  provider.start();
  CountingUpstream upstream;

  const std::string sources =
      standard_source("esign", app.url("/app"),
                      "entity_key = \"/contract\"\nstate = \"/state\"\n"
                      "terminal_states = [\"signed\"]") +
      "[source.reconcile]\ninterval = \"0\"\nstatus_url = \"" + provider.url("") +
      "/contracts/{entity}\"\nstatus_state = \"/status\"\nstuck_after = \"1s\"\n"
      "repair = \"manual\"\n\n" +
      standard_source("orders", app.url("/orders"),
                      "entity_key = \"/order\"\ndepends_on = \"/after\"\npark_timeout = \"1s\"");
  const std::string proxy = "[[proxy]]\nname = \"esign\"\nupstream = \"" + upstream.url() +
                            "\"\ntimeout = \"300ms\"\nconnect_timeout = \"300ms\"\n";
  HookdProcess hookd(alerts_config(alerts.url("/ops"), "[]", sources + "\n" + proxy));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();

  ApiClient api(hookd);
  const auto shop = api.create_app("shop");
  api.create_endpoint(shop, failing.url("/fail"));
  const auto refused = api.create_endpoint(shop, refusing.url("/refuse"));
  ASSERT_EQ(api.publish(shop, "order.paid", {{"customer", {{"email", kEmail}}}}).status, 202);
  // A person disables the refusing endpoint after its dead letter.
  ASSERT_TRUE(eventually([&] { return api.dead_letters(shop)["data"].size() == 2; }))
      << hookd.stderr_text();
  const auto disabled =
      hookd.post("/api/v1/hookd/app/" + shop + "/endpoint/" + refused + "/disable",
                 R"({"reason":"customer rotated credentials"})");
  ASSERT_EQ(disabled.status, 200) << disabled.body;

  ASSERT_EQ(proxied(hookd, "k-1").status, 201);
  EXPECT_EQ(proxied(hookd, "k-1", "slow:1").status, 422);  // mismatch
  EXPECT_EQ(proxied(hookd, "k-2", "hang").status, 504);    // sent, no answer: unknown

  ASSERT_EQ(send_event(hookd, "esign", "c-1", R"({"contract":"c-1","state":"sent"})").status, 200);
  ASSERT_EQ(send_event(hookd, "orders", "o-2", R"({"order":"o-1","after":"o-1-created"})").status,
            200);  // parked: its dependency never comes
  ASSERT_TRUE(app.wait_for_requests(1, 20s));
  std::this_thread::sleep_for(1500ms);  // past stuck_after and park_timeout
  ASSERT_EQ(hookd.post("/api/v1/hookd/reconcile/esign/run", "{}").status, 202);

  const std::set<std::string> expected = {"message.attempt.exhausted",
                                          "hookd.endpoint.credentials_refused",
                                          "endpoint.disabled",
                                          "hookd.idempotency.mismatch",
                                          "hookd.idempotency.unknown_outcome",
                                          "hookd.reconcile.difference",
                                          "hookd.inbound.parked_timeout"};
  std::multimap<std::string, nlohmann::json> got;
  ASSERT_TRUE(eventually(
      [&] {
        got = verified_alerts(alerts);
        for (const auto& type : expected) {
          if (!got.contains(type)) return false;
        }
        return true;
      },
      30s))
      << hookd.stderr_text();
  EXPECT_EQ(got.count("message.attempt.exhausted"), 2u);  // the 503 and the 401 endpoint's
  EXPECT_EQ(got.count("hookd.endpoint.credentials_refused"), 1u);
  const auto& refused_alert = got.find("hookd.endpoint.credentials_refused")->second;
  EXPECT_EQ(refused_alert["data"].value("appId", ""), shop);
  EXPECT_EQ(refused_alert["data"].value("endpointId", ""), refused);
  EXPECT_EQ(refused_alert["data"]["lastAttempt"].value("responseStatusCode", 0), 401);
  const auto& manual = got.find("endpoint.disabled")->second["data"];
  EXPECT_EQ(manual.value("trigger", ""), "manual");
  EXPECT_EQ(manual.value("endpointId", ""), refused);
  EXPECT_EQ(got.find("hookd.idempotency.unknown_outcome")->second["data"].value("proxy", ""),
            "esign");
  EXPECT_EQ(got.find("hookd.reconcile.difference")->second["data"].value("differencesFound", 0), 1);
  EXPECT_EQ(got.find("hookd.inbound.parked_timeout")->second["data"].value("eventId", ""), "o-2");
  EXPECT_GE(alert_requests.load(), static_cast<int>(got.size()) + 1);  // the first was retried

  // Nothing secret or personal in any alert body; the metric and the log line are there.
  for (const auto& r : alerts.requests()) {
    for (const std::string& secret : {kAlertSecret, kForwardSecret, inbound::kSenderSecret,
                                      std::string(HookdProcess::kToken), kEmail}) {
      EXPECT_EQ(r.body.find(secret), std::string::npos) << r.body;
    }
  }
  const auto metrics = http_get(hookd.url("/metrics")).body;
  EXPECT_NE(metrics.find(R"(hookd_alerts_raised_total{type="message.attempt.exhausted"} 2)"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find(R"(hookd_alerts_raised_total{type="endpoint.disabled"} 1)"),
            std::string::npos);
  EXPECT_NE(metrics.find("hookd_alerts_dropped_total 0"), std::string::npos);
  EXPECT_NE(hookd.stderr_text().find("\"msg\":\"alert.raised\""), std::string::npos);
  // The alerts travel as messages of hookd's own application: visible to the API.
  const auto listed = hookd.get("/api/v1/app/hookd-alerts/msg?limit=250");
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(listed.json()["data"].size(), got.size());
}

// A 403 raises message.attempt.exhausted and hookd.endpoint.credentials_refused.
struct RefusedDelivery {
  TestReceiver alerts;
  TestReceiver refusing;
  std::unique_ptr<HookdProcess> hookd;

  RefusedDelivery(int alert_status, const std::string& types) {
    alerts.set_handler(
        [alert_status](const ReceivedRequest&) { return ReceiverBehavior::respond(alert_status); });
    alerts.start();
    refusing.set_handler([](const ReceivedRequest&) { return ReceiverBehavior::respond(403); });
    refusing.start();
    hookd = std::make_unique<HookdProcess>(alerts_config(alerts.url("/ops"), types, ""));
  }
  bool publish() {
    if (!hookd->start()) return false;
    ApiClient api(*hookd);
    const auto shop = api.create_app("shop");
    api.create_endpoint(shop, refusing.url("/refuse"));
    return api.publish(shop, "order.paid", {{"n", 1}}).status == 202;
  }
  double raised(const std::string& type) const {
    return inbound::metric_value(*hookd, "hookd_alerts_raised_total{type=\"" + type + "\"}");
  }
};

TEST(AlertsE2E, TypesLimitWhatIsSent) {
  RefusedDelivery run(200, R"(["hookd.endpoint.credentials_refused"])");
  ASSERT_TRUE(run.publish()) << run.hookd->last_error();
  ASSERT_TRUE(run.alerts.wait_for_requests(1, 20s)) << run.hookd->stderr_text();
  ASSERT_TRUE(eventually([&] { return run.raised("message.attempt.exhausted") == 1; }));
  std::this_thread::sleep_for(500ms);  // room for a (wrong) second alert
  ASSERT_EQ(run.alerts.request_count(), 1u);
  EXPECT_EQ(nlohmann::json::parse(run.alerts.requests()[0].body).value("type", ""),
            "hookd.endpoint.credentials_refused");
}

TEST(AlertsE2E, TheAlertsOwnDeadLetterIsCountedNotSentAgain) {
  RefusedDelivery run(503, "[]");  // the alert receiver is down: alerts are dead-lettered
  ASSERT_TRUE(run.publish()) << run.hookd->last_error();
  // Two alerts x max_attempts (2), then each alert's own dead letter: counted and logged,
  // never published (it would fail again, and again...).
  ASSERT_TRUE(eventually([&] { return run.raised("message.attempt.exhausted") == 3; }))
      << run.hookd->stderr_text();
  std::this_thread::sleep_for(700ms);  // room for a (wrong) next round
  EXPECT_EQ(run.raised("message.attempt.exhausted"), 3);
  EXPECT_EQ(run.alerts.request_count(), 4u);
  ApiClient api(*run.hookd);
  EXPECT_EQ(api.dead_letters("hookd-alerts")["data"].size(), 2u);
}

}  // namespace
}  // namespace hookd::e2e
