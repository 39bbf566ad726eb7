// Contract: what was attempted seen from the endpoint (list_endpoint_messages: one row per
// message with its latest delivery, filters in the query) and from the message
// (list_message_destinations), expunging a message's payload (empty payload, undelivered
// deliveries discarded, not resendable, replayable or recoverable) and an attempt's response
// body (EXPUNGED, headers dropped, last_error rewritten), each audited; send-example's
// only_endpoint routing.
// Mutations checked: dropping the latest-delivery condition in store/attempted.cpp fails
// OneRowPerMessageWithLatestStatus and DestinationsOfAMessage; dropping the discard UPDATE of
// either engine fails ExpungedMessageIsNotDeliverableAnyMore; dropping the only_endpoint check
// of routes_to fails OnlyEndpointGetsTheDelivery; dropping the last_error rewrite fails
// ExpungedAttemptBody.
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using Next = AttemptReport::Next;
using Ids = std::vector<std::string>;

class AttemptedTest : public StoreContract {
 protected:
  void SetUp() override {
    StoreContract::SetUp();
    app_ = make_app();
    ep1_ = make_endpoint(app_.id);
    ep2_ = make_endpoint(app_.id);
    t0_ = clock_.now_ms();
    // m1 (user.created, channel "crm"): ep1 delivered; m2 (order.paid, tag "invoices", 1 s
    // later): ep1 dead, then resent (a newer delivery, pending). ep2 gets both, pending.
    m1_ =
        publish(app_.id, "user.created", [](NewMessage& m) { m.channels = Ids{"crm"}; }).message.id;
    clock_.advance(1'000);
    m2_ =
        publish(app_.id, "order.paid", [](NewMessage& m) { m.tags = Ids{"invoices"}; }).message.id;
    for (const auto& d : claim("w1")) {
      if (d.endpoint_id != ep1_.id) continue;  // given back below
      report(d, d.msg_id == m1_ ? Next::kDelivered : Next::kDead, 0, d.msg_id == m1_ ? 200 : 500);
    }
    ASSERT_TRUE(store_->release_leases("w1").has_value());
    ASSERT_TRUE(store_->resend(m2_, ep1_.id).has_value());
  }

  Page<EndpointMessage> endpoint_messages(const EndpointMessageFilter& filter = {},
                                          PageRequest page = newest_first()) {
    auto r = store_->list_endpoint_messages(ep1_.id, filter, page);
    EXPECT_TRUE(r.has_value()) << r.error().message;
    return r.value_or(Page<EndpointMessage>{});
  }
  Ids ids(const EndpointMessageFilter& filter) {
    Ids out;
    for (const auto& m : endpoint_messages(filter).data) out.push_back(m.message.id);
    return out;
  }
  static PageRequest newest_first() {
    PageRequest p;
    p.descending = true;
    return p;
  }

  Application app_;
  Endpoint ep1_, ep2_;
  Millis t0_ = 0;
  std::string m1_, m2_;
};

TEST_P(AttemptedTest, OneRowPerMessageWithLatestStatus) {
  auto page = endpoint_messages();
  ASSERT_EQ(page.data.size(), 2u);  // m2 has two deliveries to ep1: one row
  EXPECT_EQ(page.data[0].message.id, m2_);
  EXPECT_EQ(page.data[0].status, DeliveryStatus::kPending);  // the resend, not the dead one
  EXPECT_EQ(page.data[0].message.payload, R"({"hello":"world"})");
  EXPECT_EQ(page.data[1].message.id, m1_);
  EXPECT_EQ(page.data[1].status, DeliveryStatus::kDelivered);
  EXPECT_TRUE(page.done);
}

TEST_P(AttemptedTest, FiltersNarrowTheQuery) {
  EndpointMessageFilter delivered;
  delivered.statuses = std::vector<DeliveryStatus>{DeliveryStatus::kDelivered};
  EXPECT_EQ(ids(delivered), Ids{m1_});
  EndpointMessageFilter none;
  none.statuses = std::vector<DeliveryStatus>{};
  EXPECT_EQ(ids(none), Ids{});
  EndpointMessageFilter types;
  types.event_types = Ids{"order.paid"};
  EXPECT_EQ(ids(types), Ids{m2_});
  EndpointMessageFilter channel;
  channel.channel = "crm";
  EXPECT_EQ(ids(channel), Ids{m1_});
  EndpointMessageFilter tag;
  tag.tag = "invoices";
  EXPECT_EQ(ids(tag), Ids{m2_});
  EndpointMessageFilter after;
  after.since = t0_ + 1'000;
  EXPECT_EQ(ids(after), Ids{m2_});
  EndpointMessageFilter before;
  before.before = t0_ + 1'000;
  EXPECT_EQ(ids(before), Ids{m1_});
}

TEST_P(AttemptedTest, PagesByMessageId) {
  PageRequest one = newest_first();
  one.limit = 1;
  auto first = endpoint_messages({}, one);
  ASSERT_EQ(first.data.size(), 1u);
  EXPECT_FALSE(first.done);
  ASSERT_TRUE(first.iterator.has_value());
  EXPECT_EQ(*first.iterator, m2_);
  one.iterator = first.iterator;
  auto second = endpoint_messages({}, one);
  ASSERT_EQ(second.data.size(), 1u);
  EXPECT_EQ(second.data[0].message.id, m1_);
}

TEST_P(AttemptedTest, DestinationsOfAMessage) {
  auto r = store_->list_message_destinations(m2_, newest_first());
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->data.size(), 2u);  // ep1 once although it has two deliveries
  EXPECT_EQ(r->data[0].endpoint.id, ep2_.id);
  EXPECT_EQ(r->data[0].status, DeliveryStatus::kPending);
  EXPECT_EQ(r->data[1].endpoint.id, ep1_.id);
  EXPECT_EQ(r->data[1].status, DeliveryStatus::kPending);  // the resend
  EXPECT_EQ(r->data[1].endpoint.url, ep1_.url);
  auto m1 = store_->list_message_destinations(m1_, newest_first());
  ASSERT_TRUE(m1.has_value());
  ASSERT_EQ(m1->data.size(), 2u);
  EXPECT_EQ(m1->data[1].status, DeliveryStatus::kDelivered);
}

TEST_P(AttemptedTest, ExpungedMessageIsNotDeliverableAnyMore) {
  // A dead delivery of m2 to ep2 first (ep2 was never attempted): claim it, let it die.
  for (const auto& d : claim("w2")) {
    if (d.msg_id == m2_ && d.endpoint_id == ep2_.id) report(d, Next::kDead, 0, 500);
  }
  ASSERT_TRUE(store_->release_leases("w2").has_value());
  auto out = store_->expunge_message_content(app_.id, m2_, audit_entry("message.expunge_content"));
  ASSERT_TRUE(out.has_value()) << out.error().message;
  EXPECT_EQ(out->msg_id, m2_);
  EXPECT_EQ(out->discarded, 3);  // ep1's dead one and its pending resend, ep2's dead one
  auto msg = store_->get_message(app_.id, m2_);
  ASSERT_TRUE(msg.has_value());
  EXPECT_TRUE(payload_expunged(*msg));
  auto deliveries = store_->list_deliveries_for_message(m2_);
  ASSERT_TRUE(deliveries.has_value());
  for (const auto& d : *deliveries) EXPECT_EQ(d.status, DeliveryStatus::kDiscarded) << d.id;
  // Nothing of it can be claimed, resent, replayed or recovered.
  for (const auto& d : claim("w3")) EXPECT_NE(d.msg_id, m2_);
  auto resent = store_->resend(m2_, ep1_.id);
  ASSERT_FALSE(resent.has_value());
  EXPECT_EQ(resent.error().code, ErrorCode::kInvalidArgument);
  auto replayed = store_->replay_dead({deliveries->front().id}, std::nullopt, audit_entry("r"));
  EXPECT_FALSE(replayed.has_value());
  EXPECT_EQ(store_->recover(ep2_.id, 0).value_or(-1), 0);
  // m1 is untouched; the audit entry names the message and what was discarded.
  EXPECT_FALSE(payload_expunged(store_->get_message(app_.id, m1_).value_or(Message{})));
  auto audit = store_->list_audit(audit_by_action("message.expunge_content"), PageRequest{});
  ASSERT_TRUE(audit.has_value());
  ASSERT_EQ(audit->data.size(), 1u);
  EXPECT_EQ(audit->data[0].target_id, m2_);
  EXPECT_EQ(audit->data[0].after.value_or(""), R"({"discarded":3,"payload":"expunged"})");
}

TEST_P(AttemptedTest, ExpungeOfAnUnknownMessage) {
  auto out = store_->expunge_message_content(app_.id, "msg_nope", std::nullopt);
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().code, ErrorCode::kNotFound);
  auto other = make_app("other");
  auto elsewhere = store_->expunge_message_content(other.id, m1_, std::nullopt);
  ASSERT_FALSE(elsewhere.has_value());
  EXPECT_EQ(elsewhere.error().code, ErrorCode::kNotFound);
}

TEST_P(AttemptedTest, ExpungedAttemptBody) {
  // A failed attempt of m1 to ep2 with a body and headers.
  Delivery target;
  for (const auto& d : claim("w4")) {
    if (d.msg_id == m1_ && d.endpoint_id == ep2_.id) target = d;
  }
  ASSERT_FALSE(target.id.empty());
  AttemptReport rep;
  rep.delivery_id = target.id;
  rep.lease_owner = "w4";
  rep.attempt.response_status = 500;
  rep.attempt.response_body = "secret token abc";
  rep.attempt.response_headers = {{"set-cookie", "s=1"}};
  rep.next = Next::kDead;
  ASSERT_TRUE(store_->record_attempt(rep).has_value());
  ASSERT_TRUE(store_->release_leases("w4").has_value());
  AttemptFilter of_target;
  of_target.msg_id = m1_;
  of_target.endpoint_id = ep2_.id;
  auto attempts = store_->list_attempts(of_target, PageRequest{});
  ASSERT_TRUE(attempts.has_value());
  ASSERT_EQ(attempts->data.size(), 1u);
  const auto attempt_id = attempts->data[0].id;
  EXPECT_EQ(store_->get_delivery(target.id).value_or(Delivery{}).last_error.value_or(""),
            "HTTP 500: secret token abc");

  auto done = store_->expunge_attempt_content(m1_, attempt_id, audit_entry("attempt.expunge"));
  ASSERT_TRUE(done.has_value()) << done.error().message;
  auto after = store_->list_attempts(of_target, PageRequest{});
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->data[0].response_body, "EXPUNGED");
  EXPECT_TRUE(after->data[0].response_headers.empty());
  EXPECT_EQ(after->data[0].response_status, 500);  // the status stays
  EXPECT_EQ(store_->get_delivery(target.id).value_or(Delivery{}).last_error.value_or(""),
            "HTTP 500: EXPUNGED");
  auto audit = store_->list_audit(audit_by_target(attempt_id), PageRequest{});
  ASSERT_TRUE(audit.has_value());
  ASSERT_EQ(audit->data.size(), 1u);
  EXPECT_EQ(audit->data[0].before.value_or(""), R"({"responseBytes":16})");
  // Another message's path does not reach it.
  auto wrong = store_->expunge_attempt_content(m2_, attempt_id, std::nullopt);
  ASSERT_FALSE(wrong.has_value());
  EXPECT_EQ(wrong.error().code, ErrorCode::kNotFound);
}

TEST_P(AttemptedTest, OnlyEndpointGetsTheDelivery) {
  auto out = publish(app_.id, "svix.ping", [&](NewMessage& m) { m.only_endpoint = ep2_.id; });
  EXPECT_EQ(out.deliveries_created, 1);
  auto deliveries = store_->list_deliveries_for_message(out.message.id);
  ASSERT_TRUE(deliveries.has_value());
  ASSERT_EQ(deliveries->size(), 1u);
  EXPECT_EQ(deliveries->front().endpoint_id, ep2_.id);
}

INSTANTIATE_TEST_SUITE_P(Store, AttemptedTest, ::testing::ValuesIn(all_factories()), factory_name);

}  // namespace
}  // namespace hookd::store::testing
