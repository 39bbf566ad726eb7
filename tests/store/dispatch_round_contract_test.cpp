// Contract: the dispatcher's round trip (record + defer + expedite + claim with messages),
// write_batch (publishes + a round in one transaction) and expedite_endpoint (an endpoint that is
// up again gets its waiting retries due now).
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using Next = AttemptReport::Next;

class DispatchRoundTest : public StoreContract {
 protected:
  void SetUp() override {
    StoreContract::SetUp();
    app_ = make_app();
    ep_ = make_endpoint(app_.id);
  }
  AttemptReport delivered(const Delivery& d) {
    AttemptReport r;
    r.delivery_id = d.id;
    r.lease_owner = d.lease_owner.value_or("");
    r.attempt.response_status = 200;
    r.next = Next::kDelivered;
    return r;
  }
  Application app_;
  Endpoint ep_;
};

TEST_P(DispatchRoundTest, RecordsDefersAndClaimsWithMessages) {
  auto m1 = publish(app_.id, "e1").message;
  auto m2 = publish(app_.id, "e2").message;
  auto held = claim("w1", 2);
  ASSERT_EQ(held.size(), 2u);
  auto m3 = publish(app_.id, "e3").message;

  DispatchRound round;
  round.lease_owner = "w1";
  round.reports.push_back(delivered(held[0]));
  round.deferrals.push_back({held[1].id, clock_.now_ms() + 60'000});
  round.claim_limit = 10;
  auto r = store_->dispatch_round(round);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->recorded.size(), 1u);
  ASSERT_TRUE(r->recorded[0].has_value());
  EXPECT_EQ(r->recorded[0]->status, DeliveryStatus::kDelivered);
  EXPECT_EQ(r->deferred, 1);
  // Only m3's delivery is due (m2's was deferred); its message comes along.
  ASSERT_EQ(r->claimed.size(), 1u);
  ASSERT_EQ(r->messages.size(), 1u);
  EXPECT_EQ(r->claimed[0].msg_id, m3.id);
  EXPECT_EQ(r->claimed[0].lease_owner, "w1");
  ASSERT_TRUE(r->messages[0].has_value());
  EXPECT_EQ(r->messages[0]->id, m3.id);
  EXPECT_EQ(r->messages[0]->payload, m3.payload);
  EXPECT_EQ(r->messages[0]->event_type, "e3");
  EXPECT_EQ(store_->get_delivery(held[1].id)->status, DeliveryStatus::kPending);
  EXPECT_EQ(store_->list_attempts_by_message(m1.id, PageRequest{})->data.size(), 1u);
  EXPECT_TRUE(store_->list_attempts_by_message(m2.id, PageRequest{})->data.empty());
}

TEST_P(DispatchRoundTest, LostLeaseIsThatReportsConflictOnly) {
  publish(app_.id, "e");
  auto mine = claim("w1", 1, 1000).at(0);
  clock_.advance(1000);
  ASSERT_EQ(claim("w2").size(), 1u);  // the lease expired and w2 took it
  DispatchRound round;
  round.lease_owner = "w1";
  round.reports.push_back(delivered(mine));
  round.claim_limit = 5;
  auto r = store_->dispatch_round(round);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->recorded.size(), 1u);
  ASSERT_FALSE(r->recorded[0].has_value());
  EXPECT_EQ(r->recorded[0].error().code, ErrorCode::kConflict);
  EXPECT_TRUE(r->claimed.empty());
  EXPECT_EQ(store_->get_delivery(mine.id)->lease_owner, "w2");
}

TEST_P(DispatchRoundTest, EmptyRoundClaimsNothing) {
  publish(app_.id, "e");
  auto r = store_->dispatch_round(DispatchRound{});
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->claimed.empty());
  EXPECT_EQ(claim("w1").size(), 1u);
}

TEST_P(DispatchRoundTest, ExpediteMakesWaitingRetriesOfThatEndpointDueNow) {
  auto other = make_endpoint(app_.id);  // both endpoints get each message
  publish(app_.id, "e");
  publish(app_.id, "e");
  auto held = claim("w1");
  ASSERT_EQ(held.size(), 4u);
  for (const auto& d : held) report(d, Next::kRetry, clock_.now_ms() + 3'600'000);
  publish(app_.id, "e");
  auto leased = claim("w1");  // the third message: leased deliveries are left alone
  ASSERT_EQ(leased.size(), 2u);
  EXPECT_TRUE(claim("w1").empty());

  auto n = store_->expedite_endpoint(ep_.id);
  ASSERT_TRUE(n.has_value()) << n.error().message;
  EXPECT_EQ(*n, 2);
  auto due = claim("w2");
  ASSERT_EQ(due.size(), 2u);
  for (const auto& d : due) {
    EXPECT_EQ(d.endpoint_id, ep_.id);
    EXPECT_EQ(d.attempts, 1);  // an earlier retry, not a new delivery
  }
  EXPECT_EQ(store_->expedite_endpoint(other.id).value(), 2);
  DispatchRound round;
  round.expedite_endpoints = {ep_.id, other.id};
  EXPECT_EQ(store_->dispatch_round(round)->expedited, 0);  // nothing left waiting
}

// write_batch: the publishes first, then the round in the same transaction, so the round's
// claim already sees the deliveries just published; a rejected publish fails alone.
TEST_P(DispatchRoundTest, WriteBatchRunsPublishesThenTheRoundWhoseClaimSeesThem) {
  publish(app_.id, "e1");
  auto held = claim("w1", 1).at(0);
  WriteBatch batch;
  NewMessage fresh;
  fresh.app_id = app_.id;
  fresh.event_type = "e2";
  fresh.payload = R"({"n":2})";
  NewMessage orphan = fresh;
  orphan.app_id = "app_missing";
  batch.publishes = {fresh, orphan};
  DispatchRound round;
  round.lease_owner = "w1";
  round.reports.push_back(delivered(held));
  round.claim_limit = 10;
  batch.round = round;

  auto r = store_->write_batch(batch);
  ASSERT_TRUE(r.published.has_value()) << r.published.error().message;
  ASSERT_EQ(r.published->size(), 2u);
  EXPECT_EQ((*r.published)[0].kind, PublishOutcome::Kind::kCreated);
  EXPECT_EQ((*r.published)[0].deliveries_created, 1);
  EXPECT_EQ((*r.published)[1].kind, PublishOutcome::Kind::kRejected);
  ASSERT_TRUE(r.round.has_value());
  ASSERT_TRUE(r.round->has_value()) << r.round->error().message;
  const auto& done = **r.round;
  ASSERT_EQ(done.recorded.size(), 1u);
  ASSERT_TRUE(done.recorded[0].has_value());
  EXPECT_EQ(done.recorded[0]->status, DeliveryStatus::kDelivered);
  ASSERT_EQ(done.claimed.size(), 1u);
  EXPECT_EQ(done.claimed[0].msg_id, (*r.published)[0].message.id);
  ASSERT_EQ(done.messages.size(), 1u);
  ASSERT_TRUE(done.messages[0].has_value());
  EXPECT_EQ(done.messages[0]->payload, R"({"n":2})");
}

TEST_P(DispatchRoundTest, WriteBatchWithoutARoundOnlyPublishes) {
  WriteBatch batch;
  NewMessage m;
  m.app_id = app_.id;
  m.event_type = "e";
  m.payload = "{}";
  batch.publishes = {m, m};
  auto r = store_->write_batch(batch);
  ASSERT_TRUE(r.published.has_value());
  EXPECT_EQ(r.published->size(), 2u);
  EXPECT_FALSE(r.round.has_value());
  EXPECT_EQ(claim("w1").size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Store, DispatchRoundTest, ::testing::ValuesIn(all_factories()),
                         factory_name);

}  // namespace
}  // namespace hookd::store::testing
