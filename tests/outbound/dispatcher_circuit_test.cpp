// The circuit breaker stops hammering an endpoint that keeps failing: once open, held
// deliveries go back to the store until the cool-down ends, without counting attempts.
#include "outbound/dispatcher_fixture.hpp"

namespace hookd::outbound::testing {
namespace {

using store::DeliveryStatus;

// A07: a failing endpoint's circuit opens; the healthy endpoint is unaffected.
TEST_F(DispatcherTest, A07_OpenCircuitStopsRequestsToAFailingEndpoint) {
  receiver_.set_path("/failing", ReceiverBehavior::respond(503));
  add_endpoint("/failing");
  add_endpoint("/ok");
  auto options = fast_options();
  options.gate.max_in_flight = 1;  // one at a time, so the count of failures is exact
  options.gate.breaker.failure_threshold = 3;
  options.gate.breaker.base_cooldown = std::chrono::minutes(5);
  options.gate.breaker.max_cooldown = std::chrono::minutes(5);
  options.retry.max_attempts = 50;
  start_dispatcher(options);
  for (int i = 0; i < 5; ++i) publish(R"({"i":)" + std::to_string(i) + "}");

  ASSERT_TRUE(eventually([&] { return requests_to("/ok") == 5; }));
  ASSERT_TRUE(eventually([&] { return dispatcher_->stats().open_circuits == 1; }));
  ASSERT_TRUE(eventually([&] { return dispatcher_->stats().held == 0; }))
      << "held " << dispatcher_->stats().held << " in flight " << dispatcher_->stats().in_flight
      << " pending " << count(DeliveryStatus::kPending) << " delivering "
      << count(DeliveryStatus::kDelivering);
  // Exactly the failures that opened it; nothing while it is open.
  EXPECT_EQ(requests_to("/failing"), 3u);
  EXPECT_TRUE(eventually([&] { return count(DeliveryStatus::kPending) == 5; }));
  EXPECT_EQ(count(DeliveryStatus::kDelivered), 5);
  EXPECT_GE(dispatcher_->stats().deferred, 1u);
}

// Issue 3 (backlog drain): when a probe gets through and the circuit closes, the retries the
// endpoint's outage pushed far out (here an hour) are due at once, not at their backoff.
TEST_F(DispatcherTest, ClosedCircuitMakesTheEndpointsWaitingRetriesDueNow) {
  receiver_.set_path("/flaky", ReceiverBehavior::respond(503));
  add_endpoint("/flaky");
  auto options = fast_options();
  options.gate.max_in_flight = 1;
  options.gate.breaker.failure_threshold = 2;
  options.gate.breaker.base_cooldown = 300ms;
  options.gate.breaker.max_cooldown = 300ms;
  options.retry.base_delay = std::chrono::hours(1);
  options.retry.max_delay = std::chrono::hours(1);
  options.retry.max_attempts = 50;
  start_dispatcher(options);
  for (int i = 0; i < 4; ++i) publish(R"({"i":)" + std::to_string(i) + "}");

  ASSERT_TRUE(eventually([&] { return dispatcher_->stats().open_circuits == 1; }));
  // The failures that opened it are stored as retries due in an hour.
  ASSERT_TRUE(eventually([&] { return dispatcher_->stats().retries_scheduled >= 2; }));
  receiver_.set_path("/flaky", ReceiverBehavior::respond(200));

  ASSERT_TRUE(eventually([&] { return count(DeliveryStatus::kDelivered) == 4; }))
      << "delivered " << count(DeliveryStatus::kDelivered) << ", pending "
      << count(DeliveryStatus::kPending) << ", delivering " << count(DeliveryStatus::kDelivering)
      << "; expedited " << dispatcher_->stats().expedited << ", claimed "
      << dispatcher_->stats().claimed << ", held " << dispatcher_->stats().held << ", deferred "
      << dispatcher_->stats().deferred;
  EXPECT_GE(dispatcher_->stats().expedited, 2u);
  EXPECT_EQ(dispatcher_->stats().open_circuits, 0);
  EXPECT_EQ(metrics_.open_circuits.get().value(), 0.0);
}

}  // namespace
}  // namespace hookd::outbound::testing
