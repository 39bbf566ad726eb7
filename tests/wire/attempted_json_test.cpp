// EndpointMessageOut / MessageEndpointOut pages: Svix's status and statusText of a delivery and
// nextAttempt only while it will be attempted. Mutation checked: giving nextAttempt for every
// status fails NextAttemptOnlyWhileOpen; mapping dead to 1 fails StatusesAsSvix.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "wire/attempted_json.hpp"

namespace hookd::wire {
namespace {

using store::DeliveryStatus;

TEST(AttemptedJsonTest, StatusesAsSvix) {
  EXPECT_EQ(svix_status(DeliveryStatus::kDelivered), 0);
  EXPECT_EQ(svix_status(DeliveryStatus::kPending), 1);
  EXPECT_EQ(svix_status(DeliveryStatus::kDead), 2);
  EXPECT_EQ(svix_status(DeliveryStatus::kDiscarded), 2);
  EXPECT_EQ(svix_status(DeliveryStatus::kDelivering), 3);
  EXPECT_EQ(svix_status_text(DeliveryStatus::kDelivering), "sending");
  EXPECT_EQ(svix_status_text(DeliveryStatus::kDead), "fail");
}

TEST(AttemptedJsonTest, NextAttemptOnlyWhileOpen) {
  store::Page<store::EndpointMessage> page;
  store::EndpointMessage pending;
  pending.message.id = "msg_1";
  pending.message.payload = R"({"a":1})";
  pending.status = DeliveryStatus::kPending;
  pending.next_attempt_at = 1'700'000'000'000;
  store::EndpointMessage done = pending;
  done.message.id = "msg_0";
  done.status = DeliveryStatus::kDelivered;
  page.data = {pending, done};
  auto j = nlohmann::json::parse(endpoint_message_page_json(page, store::PageRequest{}));
  ASSERT_EQ(j["data"].size(), 2u);
  EXPECT_EQ(j["data"][0]["nextAttempt"], "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(j["data"][0]["status"], 1);
  EXPECT_EQ(j["data"][0]["payload"]["a"], 1);
  EXPECT_TRUE(j["data"][1]["nextAttempt"].is_null());
  EXPECT_EQ(j["data"][1]["statusText"], "success");
  EXPECT_EQ(j["done"], true);
}

TEST(AttemptedJsonTest, DestinationIsTheEndpointWithTheStatus) {
  store::Page<store::MessageDestination> page;
  store::MessageDestination d;
  d.endpoint.id = "ep_1";
  d.endpoint.url = "https://r.example/hook";
  d.status = DeliveryStatus::kDead;
  page.data = {d};
  auto j = nlohmann::json::parse(destination_page_json(page, store::PageRequest{}));
  EXPECT_EQ(j["data"][0]["id"], "ep_1");
  EXPECT_EQ(j["data"][0]["url"], "https://r.example/hook");
  EXPECT_EQ(j["data"][0]["status"], 2);
  EXPECT_EQ(j["data"][0]["version"], 1);
  EXPECT_TRUE(j["data"][0]["nextAttempt"].is_null());
}

}  // namespace
}  // namespace hookd::wire
