// Contract: publish (deliveries per matching endpoint, event-id dedup, ordering sequence),
// batch publish, message get/list.
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using Kind = PublishOutcome::Kind;

std::vector<std::string> endpoint_ids(const std::vector<Delivery>& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) out.push_back(d.endpoint_id);
  std::sort(out.begin(), out.end());
  return out;
}

TEST_P(StoreContract, PublishCreatesOneDeliveryPerMatchingEndpoint) {
  auto app = make_app();
  auto all = make_endpoint(app.id);
  auto paid_only = make_endpoint(
      app.id, [](Endpoint& e) { e.filter_types = std::vector<std::string>{"order.paid"}; });
  auto eu_only =
      make_endpoint(app.id, [](Endpoint& e) { e.channels = std::vector<std::string>{"eu"}; });
  make_endpoint(app.id, [](Endpoint& e) { e.disabled = true; });
  make_endpoint(make_app("other").id);

  auto paid_eu = publish(app.id, "order.paid", [](NewMessage& m) {
    m.channels = std::vector<std::string>{"eu", "fr"};
  });
  EXPECT_EQ(paid_eu.kind, Kind::kCreated);
  EXPECT_EQ(paid_eu.deliveries_created, 3);
  auto ds = *store_->list_deliveries_for_message(paid_eu.message.id);
  EXPECT_EQ(endpoint_ids(ds), (std::vector<std::string>{all.id, paid_only.id, eu_only.id}));
  for (const auto& d : ds) {
    EXPECT_EQ(d.status, DeliveryStatus::kPending);
    EXPECT_EQ(d.next_attempt_at, clock_.now_ms());
    EXPECT_EQ(d.attempts, 0);
  }

  auto refund_us = publish(app.id, "order.refunded",
                           [](NewMessage& m) { m.channels = std::vector<std::string>{"us"}; });
  EXPECT_EQ(endpoint_ids(*store_->list_deliveries_for_message(refund_us.message.id)),
            (std::vector<std::string>{all.id}));
}

TEST_P(StoreContract, PublishStoresPayloadBytesExactly) {
  auto app = make_app();
  std::string bytes("{\"a\":1}\0\xff\n", 10);
  auto out = publish(app.id, "x.y", [&](NewMessage& m) { m.payload = bytes; });
  auto got = store_->get_message(app.id, out.message.id);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->payload, bytes);
  EXPECT_TRUE(got->id.starts_with("msg_"));
}

TEST_P(StoreContract, DuplicateEventIdReturnsExistingMessage) {  // A: eventId unique per app
  auto app = make_app();
  make_endpoint(app.id);
  auto first = publish(app.id, "x.y", [](NewMessage& m) { m.event_id = "evt-1"; });
  clock_.advance(5);
  auto again = publish(app.id, "x.y", [](NewMessage& m) {
    m.event_id = "evt-1";
    m.payload = "{}";
  });
  EXPECT_EQ(again.kind, Kind::kDuplicate);
  EXPECT_EQ(again.message.id, first.message.id);
  EXPECT_EQ(again.message.payload, first.message.payload);
  EXPECT_EQ(again.deliveries_created, 0);
  EXPECT_EQ(store_->count_deliveries(DeliveryStatus::kPending).value(), 1);
  // Same event id in another application is independent.
  auto other = publish(make_app("b").id, "x.y", [](NewMessage& m) { m.event_id = "evt-1"; });
  EXPECT_EQ(other.kind, Kind::kCreated);
  // By event id.
  EXPECT_EQ(store_->get_message(app.id, "evt-1")->id, first.message.id);
}

TEST_P(StoreContract, OrderingSequenceIsMonotonicPerAppAndKey) {
  auto app = make_app();
  auto other = make_app("other");
  auto key = [](const char* k) { return [k](NewMessage& m) { m.ordering_key = k; }; };
  EXPECT_EQ(publish(app.id, "e", key("order-1")).message.sequence, 1);
  EXPECT_EQ(publish(app.id, "e", key("order-1")).message.sequence, 2);
  EXPECT_EQ(publish(app.id, "e", key("order-2")).message.sequence, 1);
  EXPECT_EQ(publish(other.id, "e", key("order-1")).message.sequence, 1);
  auto third = publish(app.id, "e", key("order-1")).message;
  EXPECT_EQ(third.sequence, 3);
  EXPECT_EQ(store_->get_message(app.id, third.id)->sequence, 3);
  EXPECT_FALSE(publish(app.id, "e").message.sequence.has_value());
  // A duplicate does not consume a sequence number.
  publish(app.id, "e", [](NewMessage& m) {
    m.ordering_key = "order-9";
    m.event_id = "dup";
  });
  publish(app.id, "e", [](NewMessage& m) {
    m.ordering_key = "order-9";
    m.event_id = "dup";
  });
  EXPECT_EQ(publish(app.id, "e", key("order-9")).message.sequence, 2);
}

TEST_P(StoreContract, PublishRejectsUnknownAppAndEmptyType) {
  NewMessage msg;
  msg.app_id = "app_missing";
  msg.event_type = "x";
  EXPECT_EQ(store_->publish(msg).error().code, ErrorCode::kNotFound);
  msg.app_id = make_app().id;
  msg.event_type = "";
  EXPECT_EQ(store_->publish(msg).error().code, ErrorCode::kInvalidArgument);
}

TEST_P(StoreContract, BatchPublishHasPerItemResults) {
  auto app = make_app();
  make_endpoint(app.id);
  publish(app.id, "e", [](NewMessage& m) { m.event_id = "old"; });
  std::vector<NewMessage> batch(4);
  for (auto& m : batch) {
    m.app_id = app.id;
    m.event_type = "e";
    m.payload = "{}";
  }
  batch[0].event_id = "new";
  batch[1].event_id = "old";
  batch[2].app_id = "app_missing";
  batch[3].event_id = "new";  // duplicate of an item earlier in the same batch
  auto r = store_->publish_batch(batch);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->size(), 4u);
  EXPECT_EQ((*r)[0].kind, Kind::kCreated);
  EXPECT_EQ((*r)[0].deliveries_created, 1);
  EXPECT_EQ((*r)[1].kind, Kind::kDuplicate);
  EXPECT_EQ((*r)[2].kind, Kind::kRejected);
  ASSERT_TRUE((*r)[2].error.has_value());
  EXPECT_EQ((*r)[2].error->code, ErrorCode::kNotFound);
  EXPECT_EQ((*r)[3].kind, Kind::kDuplicate);
  EXPECT_EQ((*r)[3].message.id, (*r)[0].message.id);
  EXPECT_EQ(store_->count_deliveries(DeliveryStatus::kPending).value(), 2);
  EXPECT_EQ(store_->list_messages(app.id, MessageFilter{}, PageRequest{})->data.size(), 2u);
}

// Svix tags: kept with the message (single and batch publish, read back by get, list and
// the dispatcher's claim) and filterable in the list; untagged messages have none.
TEST_P(StoreContract, MessageTagsAreKeptAndFilterable) {
  auto app = make_app();
  make_endpoint(app.id);
  auto single = publish(app.id, "e", [](NewMessage& m) {
    m.tags = std::vector<std::string>{"project_1", "urgent"};
  });
  EXPECT_EQ(single.message.tags, (std::vector<std::string>{"project_1", "urgent"}));
  NewMessage batched;
  batched.app_id = app.id;
  batched.event_type = "e";
  batched.payload = "{}";
  batched.tags = std::vector<std::string>{"project_2"};
  NewMessage plain = batched;
  plain.tags.reset();
  auto outcomes = store_->publish_batch({batched, plain});
  ASSERT_TRUE(outcomes.has_value()) << outcomes.error().message;
  const auto batched_id = (*outcomes)[0].message.id;
  EXPECT_EQ(store_->get_message(app.id, single.message.id)->tags, single.message.tags);
  EXPECT_EQ(store_->get_message(app.id, batched_id)->tags,
            std::optional<std::vector<std::string>>(std::vector<std::string>{"project_2"}));
  EXPECT_FALSE(store_->get_message(app.id, (*outcomes)[1].message.id)->tags.has_value());
  MessageFilter urgent;
  urgent.tag = "urgent";
  auto listed = store_->list_messages(app.id, urgent, PageRequest{});
  ASSERT_TRUE(listed.has_value()) << listed.error().message;
  ASSERT_EQ(listed->data.size(), 1u);
  EXPECT_EQ(listed->data[0].id, single.message.id);
  MessageFilter p2;
  p2.tag = "project_2";
  EXPECT_EQ(store_->list_messages(app.id, p2, PageRequest{})->data.size(), 1u);
  DispatchRound round;
  round.lease_owner = "w";
  round.claim_limit = 10;
  auto claimed = store_->dispatch_round(round);
  ASSERT_TRUE(claimed.has_value()) << claimed.error().message;
  ASSERT_EQ(claimed->messages.size(), 3u);
  int tagged = 0;
  for (const auto& m : claimed->messages) tagged += m.has_value() && m->tags.has_value();
  EXPECT_EQ(tagged, 2);
}

TEST_P(StoreContract, ListMessagesFiltersAndPages) {
  auto app = make_app();
  for (int i = 0; i < 6; ++i) {
    publish(app.id, i % 2 == 0 ? "even" : "odd", [i](NewMessage& m) {
      if (i < 2) m.channels = std::vector<std::string>{"vip"};
    });
    clock_.advance(1000);
  }
  MessageFilter evens;
  evens.event_types = std::vector<std::string>{"even"};
  EXPECT_EQ(store_->list_messages(app.id, evens, PageRequest{})->data.size(), 3u);
  MessageFilter vip;
  vip.channel = "vip";
  EXPECT_EQ(store_->list_messages(app.id, vip, PageRequest{})->data.size(), 2u);
  MessageFilter window;
  window.since = clock_.now_ms() - 4000;
  window.before = clock_.now_ms() - 2000;
  EXPECT_EQ(store_->list_messages(app.id, window, PageRequest{})->data.size(), 2u);
  PageRequest newest;
  newest.limit = 4;
  newest.descending = true;
  auto page = store_->list_messages(app.id, MessageFilter{}, newest);
  ASSERT_TRUE(page.has_value());
  EXPECT_EQ(page->data.size(), 4u);
  EXPECT_FALSE(page->done);
  EXPECT_EQ(page->data.front().event_type, "odd");  // the last published (i == 5)
  newest.iterator = page->iterator;
  auto rest = store_->list_messages(app.id, MessageFilter{}, newest);
  EXPECT_EQ(rest->data.size(), 2u);
  EXPECT_TRUE(rest->done);
}

}  // namespace
}  // namespace hookd::store::testing
