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
  ASSERT_TRUE(eventually([&] { return dispatcher_->stats().held == 0; }));
  // Exactly the failures that opened it; nothing while it is open.
  EXPECT_EQ(requests_to("/failing"), 3u);
  EXPECT_EQ(count(DeliveryStatus::kPending), 5);
  EXPECT_EQ(count(DeliveryStatus::kDelivered), 5);
  EXPECT_GE(dispatcher_->stats().deferred, 1u);
}

}  // namespace
}  // namespace hookd::outbound::testing
