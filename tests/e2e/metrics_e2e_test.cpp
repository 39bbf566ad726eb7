// A35: every metric family SPEC §7 names is exported AND moved by the code that causes it.
// One real hookd (port 0) gets scripted traffic whose outcome is known in advance — deliveries
// that succeed, fail until dead-lettered and are refused with 401; API Idempotency-Keys
// replayed and reused; inbound events accepted, repeated and badly signed; gateway calls
// forwarded, replayed and mismatched; one reconciliation difference — and the test asserts each
// family's value on /metrics, not only its presence. A family nobody updates fails here.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include "e2e/api_client.hpp"
#include "e2e/e2e_support.hpp"
#include "e2e/inbound_helpers.hpp"
#include "e2e/proxy_helpers.hpp"

namespace hookd::e2e {
namespace {

using namespace std::chrono_literals;
using inbound::send_event;
using inbound::standard_source;
using testing::ReceivedRequest;
using testing::ReceiverBehavior;
using testing::TestReceiver;

// One scrape: sample name with labels as rendered -> value.
using Samples = std::map<std::string, double>;

Samples scrape(const HookdProcess& hookd) {
  Samples out;
  std::istringstream lines(http_get(hookd.url("/metrics")).body);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.front() == '#') continue;
    const auto space = line.rfind(' ');
    if (space == std::string::npos) continue;
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

// The value of a sample, or -1 when the scrape does not have it (so a missing family fails
// an equality with any count, zero included).
double at(const Samples& samples, const std::string& key) {
  const auto it = samples.find(key);
  return it == samples.end() ? -1 : it->second;
}

constexpr int kMetricsMessages = 4;
constexpr int kMaxAttempts = 3;

std::string a35_config(const std::string& app_url, const std::string& upstream,
                       const std::string& provider_url) {
  return test_config(
             {{"max_attempts", std::to_string(kMaxAttempts)}, {"schedule", R"(["100ms"])"}}) +
         "\n" + standard_source("shop", app_url) + "\n" +
         standard_source("esign", app_url,
                         "entity_key = \"/contract\"\nstate = \"/state\"\n"
                         "terminal_states = [\"signed\"]") +
         "[source.reconcile]\ninterval = \"0\"\nstatus_url = \"" + provider_url +
         "/contracts/{entity}\"\nstatus_state = \"/status\"\nstuck_after = \"1s\"\n"
         "repair = \"manual\"\n\n" +
         "[[proxy]]\nname = \"esign\"\nupstream = \"" + upstream +
         "\"\ntimeout = \"2s\"\nconnect_timeout = \"500ms\"\n";
}

TEST(MetricsE2E, A35_EveryFamilyMovesWithTheTrafficThatCausesIt) {
  TestReceiver ok_receiver;  // 204 to everything: also the inbound sources' application
  ok_receiver.set_handler([](const ReceivedRequest&) { return ReceiverBehavior::respond(204); });
  ok_receiver.start();
  TestReceiver failing;  // 503 forever: dead-lettered after kMaxAttempts
  failing.set_handler([](const ReceivedRequest&) { return ReceiverBehavior::respond(503); });
  failing.start();
  TestReceiver refusing;  // 401: dead-lettered at once with an alert
  refusing.set_handler([](const ReceivedRequest&) { return ReceiverBehavior::respond(401); });
  refusing.start();
  CountingUpstream upstream;
  TestReceiver provider;  // the e-sign provider says the contract is signed
  provider.set_handler([](const ReceivedRequest&) {
    return ReceiverBehavior::respond(200, R"({"status":"signed"})");
  });
  provider.start();

  HookdProcess hookd(a35_config(ok_receiver.url("/app"), upstream.url(), provider.url("")));
  ASSERT_TRUE(hookd.start()) << hookd.last_error();
  const Samples before = scrape(hookd);
  EXPECT_EQ(at(before, "hookd_outbound_dead_letters"), 0);
  EXPECT_EQ(at(before, "hookd_outbound_queue_depth"), 0);

  // Outbound: kMetricsMessages to three endpoints.
  ApiClient api(hookd);
  const auto app = api.create_app("a35");
  api.create_endpoint(app, ok_receiver.url("/ok"));
  api.create_endpoint(app, failing.url("/fail"));
  api.create_endpoint(app, refusing.url("/refuse"));
  for (int i = 0; i < kMetricsMessages; ++i) {
    ASSERT_EQ(api.publish(app, "order.paid", {{"n", i}}).status, 202);
  }
  const int dead = 2 * kMetricsMessages;  // the failing and the refusing endpoint's
  ASSERT_TRUE(
      eventually([&] { return at(scrape(hookd), "hookd_outbound_dead_letters") == dead; }, 30s))
      << hookd.stderr_text();

  // API Idempotency-Key: stored, replayed, reused with another body.
  const HeaderList key = {{"Idempotency-Key", "a35-key"}};
  ASSERT_EQ(hookd.post("/api/v1/app", R"({"name":"k"})", key).status, 201);
  const auto replay = hookd.post("/api/v1/app", R"({"name":"k"})", key);
  EXPECT_EQ(replay.header("Idempotent-Replayed").value_or(""), "true");
  EXPECT_EQ(hookd.post("/api/v1/app", R"({"name":"other"})", key).status, 422);
  EXPECT_EQ(http_get(hookd.url("/api/v1/app"), {{"Authorization", "Bearer wrong"}}).status, 401);

  // Inbound: accepted, duplicate, bad signature, stale timestamp.
  const std::string event = R"({"order":"o-1"})";
  ASSERT_EQ(send_event(hookd, "shop", "evt-1", event).status, 200);
  ASSERT_EQ(send_event(hookd, "shop", "evt-1", event).status, 200);  // duplicate, answered 200
  auto forged = inbound::standard_headers("evt-2", event, inbound::now_unix(),
                                          "whsec_" + std::string(32, 'A'));
  EXPECT_EQ(http_request("POST", hookd.url("/in/shop"), event, forged).status, 401);
  EXPECT_NE(send_event(hookd, "shop", "evt-3", event, inbound::now_unix() - 3600).status, 200);

  // Gateway: forwarded, replayed, mismatched.
  ASSERT_EQ(proxied(hookd, "p-1").status, 201);
  EXPECT_EQ(proxied(hookd, "p-1").header("Idempotent-Replayed").value_or(""), "true");
  EXPECT_EQ(proxied(hookd, "p-1", "slow:1").status, 422);
  EXPECT_EQ(upstream.total_created(), 1);

  // Reconciliation: a contract left "sent" locally that the provider reports signed.
  ASSERT_EQ(send_event(hookd, "esign", "c-1-sent", R"({"contract":"c-1","state":"sent"})").status,
            200);
  ASSERT_TRUE(ok_receiver.wait_for_requests(kMetricsMessages + 2, 20s));
  std::this_thread::sleep_for(1500ms);  // past stuck_after
  const auto run = hookd.post("/api/v1/hookd/reconcile/esign/run", "{}");
  ASSERT_EQ(run.status, 202) << run.body;
  ASSERT_TRUE(eventually([&] {
    return at(scrape(hookd), R"(hookd_reconcile_runs_total{source="esign",result="ok"})") == 1;
  }));

  const Samples m = scrape(hookd);
  // Delivery outcomes and the success rate's parts.
  EXPECT_EQ(at(m, R"(hookd_outbound_deliveries_total{outcome="delivered"})"), kMetricsMessages);
  EXPECT_EQ(at(m, R"(hookd_outbound_deliveries_total{outcome="dead_lettered"})"), dead);
  EXPECT_EQ(at(m, R"(hookd_outbound_deliveries_total{outcome="retry_scheduled"})"),
            kMetricsMessages * (kMaxAttempts - 1));
  EXPECT_EQ(at(m, R"(hookd_outbound_attempts_total{result="success"})"), kMetricsMessages);
  EXPECT_EQ(at(m, R"(hookd_outbound_attempts_total{result="http_5xx"})"),
            kMetricsMessages * kMaxAttempts);
  EXPECT_EQ(at(m, R"(hookd_outbound_attempts_total{result="http_4xx"})"), kMetricsMessages);
  EXPECT_EQ(at(m, R"(hookd_outbound_alerts_total{status="401"})"), kMetricsMessages);
  // Retry distribution: one observation per settled delivery, its attempt count.
  EXPECT_EQ(at(m, "hookd_outbound_attempts_per_delivery_count"), 3 * kMetricsMessages);
  EXPECT_EQ(at(m, "hookd_outbound_attempts_per_delivery_sum"),
            kMetricsMessages * (1 + kMaxAttempts + 1));
  EXPECT_EQ(at(m, R"(hookd_outbound_attempts_per_delivery_bucket{le="1"})"), 2 * kMetricsMessages);
  // Latency histograms: one per attempt, one publish -> delivered per delivered message.
  double attempts_timed = 0;
  for (const char* result : {"success", "http_5xx", "http_4xx"}) {
    attempts_timed +=
        at(m, std::string(R"(hookd_outbound_attempt_duration_seconds_count{result=")") + result +
                  "\"}");
  }
  EXPECT_EQ(attempts_timed, kMetricsMessages * (kMaxAttempts + 2));
  EXPECT_EQ(at(m, "hookd_outbound_end_to_end_seconds_count"), kMetricsMessages);
  EXPECT_GT(at(m, "hookd_outbound_end_to_end_seconds_sum"), 0);
  // Dead letters and queue.
  EXPECT_EQ(at(m, "hookd_outbound_dead_letters"), dead);
  EXPECT_GE(at(m, "hookd_outbound_dead_letter_oldest_age_seconds"), 0);
  EXPECT_LT(at(m, "hookd_outbound_dead_letter_oldest_age_seconds"), 600);
  EXPECT_EQ(at(m, "hookd_outbound_queue_depth"), 0);
  EXPECT_EQ(at(m, "hookd_outbound_oldest_waiting_seconds"), 0);  // all settled (store tests
  EXPECT_EQ(at(m, "hookd_inbound_oldest_waiting_seconds"), 0);   // prove the ages)
  // Breaker off in this config; BreakerE2E asserts the gauge rising and falling.
  EXPECT_EQ(at(m, "hookd_outbound_open_circuits"), 0);
  // API idempotency and auth.
  EXPECT_EQ(at(m, R"(hookd_idempotency_requests_total{outcome="stored"})"), 1);
  EXPECT_EQ(at(m, R"(hookd_idempotency_requests_total{outcome="replayed"})"), 1);
  EXPECT_EQ(at(m, R"(hookd_idempotency_requests_total{outcome="conflict"})"), 1);
  EXPECT_EQ(at(m, "hookd_api_idempotency_key_reuse_total"), 1);
  EXPECT_EQ(at(m, "hookd_api_unauthorized_total"), 1);
  // Inbound: duplicates and rejections by reason.
  EXPECT_EQ(at(m, R"(hookd_inbound_events_total{outcome="accepted"})"), 2);  // shop + esign
  EXPECT_EQ(at(m, R"(hookd_inbound_events_total{outcome="duplicate"})"), 1);
  EXPECT_EQ(at(m, R"(hookd_inbound_events_total{outcome="rejected"})"), 2);
  EXPECT_EQ(at(m, R"(hookd_inbound_rejections_total{reason="signature"})"), 1);
  EXPECT_EQ(at(m, R"(hookd_inbound_rejections_total{reason="timestamp"})"), 1);
  EXPECT_EQ(at(m, R"(hookd_inbound_requests_total{source="shop",outcome="duplicate"})"), 1);
  EXPECT_EQ(at(m, R"(hookd_inbound_forwards_total{source="shop",outcome="forwarded"})"), 1);
  // The idempotency gateway.
  EXPECT_EQ(at(m, R"(hookd_proxy_requests_total{proxy="esign",outcome="forwarded"})"), 1);
  EXPECT_EQ(at(m, R"(hookd_proxy_requests_total{proxy="esign",outcome="replayed"})"), 1);
  EXPECT_EQ(at(m, R"(hookd_proxy_requests_total{proxy="esign",outcome="mismatch"})"), 1);
  EXPECT_EQ(at(m, R"(hookd_proxy_upstream_seconds_count{proxy="esign"})"), 1);
  EXPECT_EQ(at(m, R"(hookd_proxy_unknown_keys{proxy="esign"})"), 0);
  // Reconciliation differences.
  EXPECT_EQ(at(m, R"(hookd_reconcile_differences{source="esign",kind="state_mismatch",)"
                  R"(state="open"})"),
            1);
  EXPECT_GE(at(m, R"(hookd_reconcile_oldest_open_seconds{source="esign"})"), 0);
  EXPECT_EQ(at(m, R"(hookd_reconcile_run_seconds_count{source="esign"})"), 1);
}

}  // namespace
}  // namespace hookd::e2e
