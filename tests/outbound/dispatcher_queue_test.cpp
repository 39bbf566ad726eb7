// Queue behaviour: FIFO ordering with retries in the middle (A22), expired leases of a dead
// owner, and stop() giving leases back.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include <nlohmann/json.hpp>

#include "outbound/dispatcher_fixture.hpp"

namespace hookd::outbound::testing {
namespace {

using store::DeliveryStatus;

// A22: per ordering key, the receiver sees publish order even when one message needs a retry;
// the next one waits for it.
TEST_F(DispatcherTest, A22_FifoKeepsOrderPerKeyAcrossRetries) {
  add_endpoint("/fifo", [](store::Endpoint& ep) { ep.fifo = true; });
  std::mutex mutex;
  std::set<std::string> failed_once;
  std::map<std::string, std::vector<std::string>> seen;  // key -> names in arrival order
  StopBeforeLocalsDie stop_first{this};
  receiver_.set_handler([&](const ReceivedRequest& r) {
    const auto body = nlohmann::json::parse(r.body);
    const std::string key = body["key"], name = body["name"];
    std::lock_guard lock(mutex);
    seen[key].push_back(name);
    if ((name == "a2" || name == "b3") && failed_once.insert(name).second) {
      return ReceiverBehavior::respond(503);
    }
    return ReceiverBehavior::respond(200);
  });
  start_dispatcher();
  for (int i = 1; i <= 5; ++i) {
    for (const std::string key : {"a", "b"}) {
      const std::string name = key + std::to_string(i);
      publish(R"({"key":")" + key + R"(","name":")" + name + R"("})", key);
    }
  }

  ASSERT_TRUE(advance_until([&] { return count(DeliveryStatus::kDelivered) == 10; }));
  std::lock_guard lock(mutex);
  EXPECT_EQ(seen["a"], (std::vector<std::string>{"a1", "a2", "a2", "a3", "a4", "a5"}));
  EXPECT_EQ(seen["b"], (std::vector<std::string>{"b1", "b2", "b3", "b3", "b4", "b5"}));
}

// A delivery leased by an owner that died is delivered once its lease expires.
TEST_F(DispatcherTest, ExpiredLeaseOfADeadOwnerIsClaimedAgain) {
  add_endpoint("/ok");
  const auto msg = publish(R"({"n":1})");
  auto stolen = store_->claim_due({"dead-node/dispatcher", 300, 10});
  ASSERT_TRUE(stolen.has_value());
  ASSERT_EQ(stolen->size(), 1u);
  start_dispatcher();
  ASSERT_TRUE(settle());
  EXPECT_EQ(receiver_.count_for_webhook_id(msg.id), 0u) << "not before the lease expires";
  advance(300ms);

  ASSERT_TRUE(wait_status(msg.id, DeliveryStatus::kDelivered));
  EXPECT_EQ(receiver_.count_for_webhook_id(msg.id), 1u);
}

// stop() gives back what it still holds: nothing stays leased to the stopped dispatcher (the
// clock stands still: after its burst of one, the rate limit holds the rest back).
TEST_F(DispatcherTest, StopReleasesLeases) {
  add_endpoint("/slow", [](store::Endpoint& ep) { ep.rate_limit = 1; });
  std::vector<store::Message> msgs;
  for (int i = 0; i < 10; ++i) msgs.push_back(publish(R"({"i":)" + std::to_string(i) + "}"));
  start_dispatcher();
  ASSERT_TRUE(eventually([&] { return dispatcher_->stats().claimed >= 10; }));
  dispatcher_->stop();

  EXPECT_EQ(count(DeliveryStatus::kDelivering), 0);
  EXPECT_EQ(count(DeliveryStatus::kPending) + count(DeliveryStatus::kDelivered), 10);
  EXPECT_GE(count(DeliveryStatus::kPending), 5);
  for (const auto& m : msgs) {
    for (const auto& d : deliveries_of(m.id)) EXPECT_FALSE(d.lease_owner.has_value());
  }
}

// Waiting at the gate does not count an attempt: rate-limited deliveries keep attempts == 1.
TEST_F(DispatcherTest, GateWaitsDoNotCountAttempts) {
  add_endpoint("/limited", [](store::Endpoint& ep) { ep.rate_limit = 5; });
  std::vector<store::Message> msgs;
  for (int i = 0; i < 12; ++i) msgs.push_back(publish(R"({"i":)" + std::to_string(i) + "}"));
  start_dispatcher();

  ASSERT_TRUE(advance_until([&] { return count(DeliveryStatus::kDelivered) == 12; }, 100ms));
  for (const auto& m : msgs) EXPECT_EQ(deliveries_of(m.id).at(0).attempts, 1);
  EXPECT_EQ(requests_to("/limited"), 12u);
}

// An endpoint update (new URL) takes effect within the endpoint cache's TTL.
TEST_F(DispatcherTest, EndpointUpdatesTakeEffect) {
  auto ep = add_endpoint("/old");
  start_dispatcher();
  const auto first = publish(R"({"n":1})");
  ASSERT_TRUE(wait_status(first.id, DeliveryStatus::kDelivered));
  ep.url = receiver_.url("/new");
  ASSERT_TRUE(store_->update_endpoint(ep).has_value());
  // Within the endpoint cache's TTL (200 ms in these tests) the new URL is used.
  advance(fast_options().endpoint_ttl);
  publish(R"({"n":2})");
  const bool moved = eventually([&] { return requests_to("/new") > 0; });
  EXPECT_TRUE(moved);
}

}  // namespace
}  // namespace hookd::outbound::testing
