// The dispatcher applies the delivery policy end to end: retries transient failures,
// dead-letters what cannot recover, disables gone endpoints, signs every attempt, and logs
// exactly one attempt row per request the receiver saw.
#include <algorithm>

#include "hookd/signing.hpp"
#include "outbound/dispatcher_fixture.hpp"

namespace hookd::outbound::testing {
namespace {

using store::DeliveryStatus;

// A01: 503, a reset connection and a timeout are retried until the 200.
TEST_F(DispatcherTest, A01_TransientFailuresAreRetriedUntilDelivered) {
  add_endpoint("/flaky", [](store::Endpoint& ep) { ep.total_timeout_ms = 300; });
  receiver_.enqueue("/flaky", ReceiverBehavior::respond(503));
  receiver_.enqueue("/flaky", ReceiverBehavior::reset());
  receiver_.enqueue("/flaky", ReceiverBehavior::respond(200).after(3s));  // times out
  start_dispatcher();
  const auto msg = publish(R"({"n":1})");

  ASSERT_TRUE(wait_status(msg.id, DeliveryStatus::kDelivered));
  const auto d = deliveries_of(msg.id).at(0);
  EXPECT_EQ(d.attempts, 4);
  EXPECT_EQ(receiver_.count_for_webhook_id(msg.id), 4u);
  auto attempts = store_->list_attempts_by_message(msg.id, {});
  ASSERT_TRUE(attempts.has_value());
  ASSERT_EQ(attempts->data.size(), 4u);
  int successes = 0;
  for (const auto& a : attempts->data) successes += a.success ? 1 : 0;
  EXPECT_EQ(successes, 1);
  // Metrics follow the store commit: poll.
  EXPECT_TRUE(eventually([&] { return delivery_metric("delivered") == 1u; }));
  EXPECT_EQ(delivery_metric("retry_scheduled"), 3u);
}

// A03: 400, 401, 403, 404, 422 go to the dead-letter queue after one attempt; 401/403 alert.
TEST_F(DispatcherTest, A03_PermanentClientErrorsAreDeadLetteredAtOnce) {
  const std::vector<int> statuses{400, 401, 403, 404, 422};
  for (int status : statuses) {
    const std::string path = "/s" + std::to_string(status);
    receiver_.set_path(path, ReceiverBehavior::respond(status));
    add_endpoint(path);
  }
  start_dispatcher();
  const auto msg = publish(R"({"n":1})");

  ASSERT_TRUE(wait_status(msg.id, DeliveryStatus::kDead));
  for (const auto& d : deliveries_of(msg.id)) EXPECT_EQ(d.attempts, 1);
  for (int status : statuses) EXPECT_EQ(requests_to("/s" + std::to_string(status)), 1u);
  EXPECT_TRUE(eventually([&] { return delivery_metric("dead_lettered") == 5u; }));
  EXPECT_EQ(dispatcher_->stats().alerts, 2u);  // 401 and 403
  EXPECT_EQ(metrics_.attempts.with({"http_4xx"}).value(), 5u);
}

// A04: a receiver that always fails gets max_attempts requests, then the dead-letter queue.
TEST_F(DispatcherTest, A04_MaxAttemptsThenDeadLetter) {
  receiver_.set_path("/down", ReceiverBehavior::respond(500));
  add_endpoint("/down");
  auto options = fast_options();
  options.retry.max_attempts = 4;
  start_dispatcher(options);
  const auto msg = publish(R"({"n":1})");

  ASSERT_TRUE(wait_status(msg.id, DeliveryStatus::kDead));
  EXPECT_EQ(deliveries_of(msg.id).at(0).attempts, 4);
  EXPECT_EQ(requests_to("/down"), 4u);
  auto dead = store_->list_dead({}, {});
  ASSERT_TRUE(dead.has_value());
  EXPECT_EQ(dead->data.size(), 1u);
}

// A04: the endpoint's own retry policy (JSON) wins over the defaults.
TEST_F(DispatcherTest, A04_EndpointRetryPolicyCapsAttempts) {
  receiver_.set_path("/down", ReceiverBehavior::respond(503));
  add_endpoint("/down", [](store::Endpoint& ep) {
    ep.retry_policy = R"({"maxAttempts": 2, "baseDelayMs": 10, "maxDelayMs": 20})";
  });
  start_dispatcher();
  const auto msg = publish(R"({"n":1})");

  ASSERT_TRUE(wait_status(msg.id, DeliveryStatus::kDead));
  EXPECT_EQ(requests_to("/down"), 2u);
}

// A06: 410 disables that endpoint (reason + audit entry); the other one keeps receiving.
TEST_F(DispatcherTest, A06_GoneDisablesOnlyThatEndpoint) {
  receiver_.set_path("/gone", ReceiverBehavior::respond(410));
  const auto gone = add_endpoint("/gone");
  add_endpoint("/ok");
  start_dispatcher();
  const auto first = publish(R"({"n":1})");

  ASSERT_TRUE(eventually([&] {
    auto ep = store_->get_endpoint(app_.id, gone.id);
    return ep && ep->disabled;
  }));
  auto ep = store_->get_endpoint(app_.id, gone.id);
  ASSERT_TRUE(ep.has_value());
  EXPECT_TRUE(ep->disabled_reason.value_or("").find("410") != std::string::npos);
  store::AuditFilter filter;
  filter.target_id = gone.id;
  auto audit = store_->list_audit(filter, {});
  ASSERT_TRUE(audit.has_value());
  ASSERT_FALSE(audit->data.empty());
  EXPECT_EQ(audit->data.at(0).action, "endpoint.disable");

  for (int i = 2; i <= 5; ++i) publish(R"({"n":)" + std::to_string(i) + "}");
  ASSERT_TRUE(eventually([&] { return requests_to("/ok") == 5; }));
  EXPECT_EQ(requests_to("/gone"), 1u);
  for (const auto& d : deliveries_of(first.id)) {
    EXPECT_EQ(d.status,
              d.endpoint_id == gone.id ? DeliveryStatus::kDead : DeliveryStatus::kDelivered);
  }
  EXPECT_TRUE(eventually([&] { return dispatcher_->stats().endpoints_disabled == 1u; }));
  // A41: its dead letter and the disable are alerts (automatic, with the 410 as reason).
  const auto alerts = alerts_.all();
  ASSERT_EQ(alerts.size(), 2u);
  EXPECT_EQ(alerts[0].first, "message.attempt.exhausted");
  EXPECT_EQ(alerts[0].second.value("msgId", ""), first.id);
  EXPECT_EQ(alerts[0].second.value("endpointId", ""), gone.id);
  EXPECT_EQ(alerts[0].second["lastAttempt"].value("responseStatusCode", 0), 410);
  EXPECT_EQ(alerts[1].first, "endpoint.disabled");
  EXPECT_EQ(alerts[1].second.value("trigger", ""), "automatic");
}

// A30: ten deliveries to one endpoint are in flight at once and each gets a 410: the
// endpoint goes from enabled to disabled once, so the audit log holds exactly one
// `endpoint.disable` entry (not one per 410).
TEST_F(DispatcherTest, A30_ManyGoneAnswersInFlightWriteOneDisableEntry) {
  constexpr std::size_t kMessages = 10;
  std::atomic<std::size_t> arrived{0};
  StopBeforeLocalsDie stop_first{this};
  receiver_.set_handler([&](const ReceivedRequest&) {
    ++arrived;
    // Hold every answer until all ten requests are in flight (bounded: 10 s).
    for (int i = 0; i < 2'000 && arrived.load() < kMessages; ++i) std::this_thread::sleep_for(5ms);
    return ReceiverBehavior::respond(410);
  });
  const auto gone = add_endpoint("/gone");
  for (std::size_t i = 0; i < kMessages; ++i) publish(R"({"n":)" + std::to_string(i) + "}");
  auto options = fast_options();
  options.gate.max_in_flight = kMessages;
  start_dispatcher(options);

  ASSERT_TRUE(eventually([&] { return count(DeliveryStatus::kDead) == kMessages; }))
      << "dead: " << count(DeliveryStatus::kDead);
  EXPECT_EQ(arrived.load(), kMessages) << "all ten were in flight together";
  // A delivery is dead in the store when its record commits; its alerts and the disable
  // follow on the dispatcher's thread just after, so wait for them too (ASan on a loaded
  // machine saw 2 of 10 alerts at the moment the tenth row turned dead).
  const auto exhausted = [&] {
    const auto types = alerts_.types();
    return static_cast<std::size_t>(
        std::ranges::count(types, std::string("message.attempt.exhausted")));
  };
  ASSERT_TRUE(eventually([&] {
    return exhausted() == kMessages && dispatcher_->stats().endpoints_disabled >= 1;
  })) << "exhausted alerts: "
      << exhausted();
  store::AuditFilter filter;
  filter.target_id = gone.id;
  filter.action = "endpoint.disable";
  store::PageRequest all;
  all.limit = store::PageRequest::kMaxLimit;
  auto audit = store_->list_audit(filter, all);
  ASSERT_TRUE(audit.has_value());
  EXPECT_EQ(audit->data.size(), 1u) << "one transition, one entry";
  EXPECT_EQ(dispatcher_->stats().endpoints_disabled, 1u);
  const auto types = alerts_.types();  // one disable alert, however many 410s
  EXPECT_EQ(std::ranges::count(types, std::string("endpoint.disabled")), 1);
  EXPECT_EQ(std::ranges::count(types, std::string("message.attempt.exhausted")),
            static_cast<std::ptrdiff_t>(kMessages));
  auto ep = store_->get_endpoint(app_.id, gone.id);
  ASSERT_TRUE(ep.has_value());
  EXPECT_TRUE(ep->disabled);
}

// A09: one attempt row per request the receiver saw, across successes and failures.
TEST_F(DispatcherTest, A09_AttemptRowsEqualRequestsSeen) {
  const auto ep = add_endpoint("/mixed", [](store::Endpoint& e) { e.total_timeout_ms = 300; });
  std::atomic<int> n{0};
  StopBeforeLocalsDie stop_first{this};
  receiver_.set_handler([&n](const ReceivedRequest&) {
    switch (n++ % 4) {
      case 0:
        return ReceiverBehavior::respond(503);
      case 1:
        return ReceiverBehavior::reset();
      case 2:
        return ReceiverBehavior::respond(200).after(1s);  // client gives up at 300 ms
      default:
        return ReceiverBehavior::respond(200);
    }
  });
  start_dispatcher();
  std::vector<store::Message> msgs;
  for (int i = 0; i < 8; ++i) msgs.push_back(publish(R"({"i":)" + std::to_string(i) + "}"));

  ASSERT_TRUE(advance_until(
      [&] { return count(DeliveryStatus::kDelivered) + count(DeliveryStatus::kDead) == 8; }));
  receiver_.stop();  // no request may still be arriving
  EXPECT_EQ(attempt_rows_of_endpoint(ep.id), receiver_.request_count());
  EXPECT_GT(receiver_.request_count(), 8u);
}

// A25: processed, then the connection dropped: retried with the same webhook-id.
TEST_F(DispatcherTest, A25_ProcessedThenDroppedIsRetriedWithTheSameId) {
  add_endpoint("/drop");
  receiver_.enqueue("/drop", ReceiverBehavior::process_then_drop());
  start_dispatcher();
  const auto msg = publish(R"({"n":1})");

  ASSERT_TRUE(wait_status(msg.id, DeliveryStatus::kDelivered));
  EXPECT_EQ(receiver_.processed_for_webhook_id(msg.id), 2u);
  EXPECT_EQ(deliveries_of(msg.id).at(0).attempts, 2);
}

// Every attempt is signed (Standard Webhooks) and carries the stored body byte for byte.
TEST_F(DispatcherTest, RequestsAreSignedAndCarryTheStoredBody) {
  add_endpoint("/signed", [](store::Endpoint& ep) { ep.headers["x-tenant"] = "acme"; });
  start_dispatcher();
  const std::string body = "{\"amount\": 12.50, \"note\": \"caf\xc3\xa9\"}";
  const auto msg = publish(body, "order-7");
  ASSERT_TRUE(wait_status(msg.id, DeliveryStatus::kDelivered));

  const auto req = receiver_.requests().at(0);
  EXPECT_EQ(req.body, body);
  EXPECT_EQ(req.header("webhook-id").value_or(""), msg.id);
  EXPECT_EQ(req.header("webhook-sequence").value_or(""), std::to_string(msg.sequence.value_or(-1)));
  EXPECT_EQ(req.header("content-type").value_or(""), "application/json");
  EXPECT_TRUE(req.header("user-agent").value_or("").starts_with("hookd/"));
  EXPECT_EQ(req.header("x-tenant").value_or(""), "acme");
  // By default both header families, the same values (checked: a signer_for that signs with
  // the webhook naming only fails here).
  EXPECT_EQ(req.header("svix-id").value_or(""), msg.id);
  EXPECT_EQ(req.header("svix-timestamp"), req.header("webhook-timestamp"));
  EXPECT_EQ(req.header("svix-signature"), req.header("webhook-signature"));
  EXPECT_TRUE(req.header("webhook-signature").value_or("").starts_with("v1,"));
  HttpHeaders headers;
  for (const auto& [name, value] : req.headers) headers.push_back({name, value});
  const std::vector<std::string> secrets{kSecret};
  auto verifier = Verifier::create({}, secrets);
  ASSERT_TRUE(verifier.has_value());
  const auto now =  // the clock that signed
      std::chrono::duration_cast<std::chrono::seconds>(clock_.now().time_since_epoch()).count();
  EXPECT_TRUE(verifier->verify(headers, req.body, now).has_value());
}

// During a rotation both secrets sign; an endpoint may ask for svix-* header names only.
TEST_F(DispatcherTest, RotationSignsWithBothSecretsAndSvixNamesWork) {
  const auto ep = add_endpoint("/rot", [](store::Endpoint& e) { e.header_naming = "svix"; });
  const std::string next = "whsec_dGhlLW5leHQtc2VjcmV0LWtleS0xMjM0NTY=";
  ASSERT_TRUE(store_->rotate_endpoint_secret(app_.id, ep.id, next, 3'600'000).has_value());
  start_dispatcher();
  const auto msg = publish(R"({"n":1})");
  ASSERT_TRUE(wait_status(msg.id, DeliveryStatus::kDelivered));

  const auto req = receiver_.requests().at(0);
  EXPECT_EQ(req.header("svix-id").value_or(""), msg.id);
  EXPECT_FALSE(req.header("webhook-id").has_value());
  EXPECT_FALSE(req.header("webhook-signature").has_value());
  HttpHeaders headers;
  for (const auto& [name, value] : req.headers) headers.push_back({name, value});
  const auto now =  // the clock that signed
      std::chrono::duration_cast<std::chrono::seconds>(clock_.now().time_since_epoch()).count();
  SchemeOptions svix;
  svix.naming = HeaderNaming::kSvix;
  for (const std::string& secret : {std::string(kSecret), next}) {
    const std::vector<std::string> one{secret};
    auto verifier = Verifier::create(svix, one);
    ASSERT_TRUE(verifier.has_value());
    EXPECT_TRUE(verifier->verify(headers, req.body, now).has_value()) << secret;
  }
}

// headerNaming "webhook": the Standard Webhooks names only, no svix-* (fails if the setting
// is ignored and both families go out).
TEST_F(DispatcherTest, WebhookNamingSendsNoSvixHeaders) {
  add_endpoint("/webhook-only", [](store::Endpoint& e) { e.header_naming = "webhook"; });
  start_dispatcher();
  const auto msg = publish(R"({"n":3})");
  ASSERT_TRUE(wait_status(msg.id, DeliveryStatus::kDelivered));

  const auto req = receiver_.requests().at(0);
  EXPECT_EQ(req.header("webhook-id").value_or(""), msg.id);
  EXPECT_TRUE(req.header("webhook-signature").has_value());
  for (const char* name : {"svix-id", "svix-timestamp", "svix-signature"}) {
    EXPECT_FALSE(req.header(name).has_value()) << name;
  }
}

// A rotation between kinds (whsec_ -> whsk_): the old key signs v1, the new one v1a, both
// in the one webhook-signature header; the request verifies with each key on its own.
TEST_F(DispatcherTest, RotationToAnotherKindSignsWithBothKinds) {
  const auto ep = add_endpoint("/mixed");
  const std::string next = "whsk_AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=";
  ASSERT_TRUE(store_->rotate_endpoint_secret(app_.id, ep.id, next, 3'600'000).has_value());
  start_dispatcher();
  const auto msg = publish(R"({"n":2})");
  ASSERT_TRUE(wait_status(msg.id, DeliveryStatus::kDelivered));

  const auto req = receiver_.requests().at(0);
  const std::string signature = req.header("webhook-signature").value_or("");
  EXPECT_NE(signature.find("v1,"), std::string::npos) << signature;
  EXPECT_NE(signature.find("v1a,"), std::string::npos) << signature;
  HttpHeaders headers;
  for (const auto& [name, value] : req.headers) headers.push_back({name, value});
  const auto now =  // the clock that signed
      std::chrono::duration_cast<std::chrono::seconds>(clock_.now().time_since_epoch()).count();
  SchemeOptions hmac;
  SchemeOptions ed25519;
  ed25519.kind = SchemeKind::kStandardEd25519;
  const std::vector<std::string> old_key{std::string(kSecret)};
  const std::vector<std::string> new_key{next};
  auto by_old = Verifier::create(hmac, old_key);
  auto by_new = Verifier::create(ed25519, new_key);
  ASSERT_TRUE(by_old.has_value() && by_new.has_value());
  EXPECT_TRUE(by_old->verify(headers, req.body, now).has_value()) << "old whsec_ key (v1)";
  EXPECT_TRUE(by_new->verify(headers, req.body, now).has_value()) << "new whsk_ key (v1a)";
}

}  // namespace
}  // namespace hookd::outbound::testing
