// Contract: the delivery queue — claim (due time, leases, expiry, batch size, FIFO
// head-of-line), record attempt (retry / delivered / dead, lost lease), release, attempts.
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using Next = AttemptReport::Next;

class QueueTest : public StoreContract {
 protected:
  void SetUp() override {
    StoreContract::SetUp();
    app_ = make_app();
    ep_ = make_endpoint(app_.id);
  }
  Application app_;
  Endpoint ep_;
};

TEST_P(QueueTest, ClaimLeasesDueDeliveriesOnce) {
  auto msg = publish(app_.id, "e").message;
  auto first = claim("w1");
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].msg_id, msg.id);
  EXPECT_EQ(first[0].status, DeliveryStatus::kDelivering);
  EXPECT_EQ(first[0].lease_owner, "w1");
  EXPECT_EQ(first[0].lease_until, clock_.now_ms() + 30'000);
  EXPECT_TRUE(claim("w2").empty());  // leased: nobody else gets it
}

TEST_P(QueueTest, ClaimRespectsDueTime) {
  publish(app_.id, "e");
  auto d = claim("w1").at(0);
  report(d, Next::kRetry, clock_.now_ms() + 5000);
  clock_.advance(4999);
  EXPECT_TRUE(claim("w1").empty());
  clock_.advance(1);
  auto again = claim("w1");
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].attempts, 1);
}

TEST_P(QueueTest, ExpiredLeaseIsClaimableAgain) {
  publish(app_.id, "e");
  auto d = claim("w1", 100, 10'000).at(0);
  clock_.advance(9'999);
  EXPECT_TRUE(claim("w2").empty());
  clock_.advance(1);
  auto taken = claim("w2");
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].id, d.id);
  EXPECT_EQ(taken[0].lease_owner, "w2");
}

TEST_P(QueueTest, LostLeaseMakesRecordAttemptConflict) {
  publish(app_.id, "e");
  auto old = claim("w1", 100, 1000).at(0);
  clock_.advance(1000);
  auto taken = claim("w2").at(0);
  AttemptReport rep;
  rep.delivery_id = old.id;
  rep.lease_owner = "w1";
  rep.next = Next::kDelivered;
  auto r = store_->record_attempt(rep);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kConflict);
  // Nothing was written: no attempt row, w2 still holds the lease.
  EXPECT_TRUE(store_->list_attempts_by_message(old.msg_id, PageRequest{})->data.empty());
  EXPECT_EQ(store_->get_delivery(old.id)->lease_owner, "w2");
  report(taken, Next::kDelivered);  // the new owner can finish it
  EXPECT_EQ(store_->get_delivery(old.id)->status, DeliveryStatus::kDelivered);
}

TEST_P(QueueTest, ClaimHonoursBatchSizeOldestFirst) {
  for (int i = 0; i < 5; ++i) {
    publish(app_.id, "e");
    clock_.advance(1);
  }
  // Fresh deliveries are due when published (created_at); a claimed one is due again
  // when its lease expires.
  auto a = claim("w1", 2);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_LT(a[0].created_at, a[1].created_at);
  EXPECT_EQ(a[0].next_attempt_at, *a[0].lease_until);
  auto b = claim("w1", 10);
  EXPECT_EQ(b.size(), 3u);
  EXPECT_GT(b[0].created_at, a[1].created_at);
}

TEST_P(QueueTest, RecordAttemptStatesAndAttemptLog) {
  auto msg = publish(app_.id, "e").message;
  auto d = claim("w1").at(0);
  const auto t1 = clock_.now_ms();
  auto retried = report(d, Next::kRetry, t1 + 60'000, 503);
  EXPECT_EQ(retried.status, DeliveryStatus::kPending);
  EXPECT_EQ(retried.attempts, 1);
  EXPECT_EQ(retried.next_attempt_at, t1 + 60'000);
  EXPECT_FALSE(retried.lease_owner.has_value());
  EXPECT_EQ(retried.first_attempt_at, t1);
  EXPECT_EQ(retried.last_response_status, 503);

  clock_.advance(60'000);
  auto delivered = report(claim("w1").at(0), Next::kDelivered, 0, 200);
  EXPECT_EQ(delivered.status, DeliveryStatus::kDelivered);
  EXPECT_EQ(delivered.attempts, 2);
  EXPECT_EQ(delivered.first_attempt_at, t1);
  EXPECT_TRUE(claim("w1").empty());

  auto attempts = store_->list_attempts_by_message(msg.id, PageRequest{});
  ASSERT_TRUE(attempts.has_value());
  ASSERT_EQ(attempts->data.size(), 2u);
  EXPECT_TRUE(attempts->data[0].id.starts_with("atmpt_"));
  EXPECT_EQ(attempts->data[0].response_status, 503);
  EXPECT_FALSE(attempts->data[0].success);
  EXPECT_TRUE(attempts->data[1].success);
  EXPECT_EQ(attempts->data[1].endpoint_id, ep_.id);
  EXPECT_EQ(store_->list_attempts_by_endpoint(ep_.id, PageRequest{})->data.size(), 2u);
}

TEST_P(QueueTest, AttemptKeepsResponseDetails) {
  publish(app_.id, "e");
  auto d = claim("w1").at(0);
  AttemptReport rep;
  rep.delivery_id = d.id;
  rep.lease_owner = "w1";
  rep.next = Next::kDead;
  rep.attempt.response_status = 400;
  rep.attempt.response_headers = {{"content-type", "text/plain"}};
  rep.attempt.response_body = "bad request";
  rep.attempt.duration_ms = 42;
  rep.attempt.url = ep_.url;
  auto r = store_->record_attempt(rep);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, DeliveryStatus::kDead);
  auto a = store_->list_attempts_by_endpoint(ep_.id, PageRequest{})->data.at(0);
  EXPECT_EQ(a.response_headers, rep.attempt.response_headers);
  EXPECT_EQ(a.response_body, "bad request");
  EXPECT_EQ(a.duration_ms, 42);
  EXPECT_EQ(a.url, ep_.url);
  EXPECT_EQ(a.attempted_at, clock_.now_ms());
}

TEST_P(QueueTest, ReleaseLeasesReturnsWorkForOthers) {
  publish(app_.id, "e");
  publish(app_.id, "e");
  ASSERT_EQ(claim("w1").size(), 2u);
  EXPECT_EQ(store_->release_leases("w2").value(), 0);
  EXPECT_EQ(store_->release_leases("w1").value(), 2);
  EXPECT_EQ(claim("w2").size(), 2u);
}

TEST_P(QueueTest, DeferGivesLeasesBackWithoutCountingAnAttempt) {
  publish(app_.id, "e");
  publish(app_.id, "e");
  auto claimed = claim("w1");
  ASSERT_EQ(claimed.size(), 2u);
  const Millis later = clock_.now_ms() + 5'000;
  std::vector<Deferral> items{{claimed[0].id, later}, {claimed[1].id, later}};
  EXPECT_EQ(store_->defer_deliveries(items, "w2").value(), 0);  // not w2's leases
  EXPECT_EQ(store_->defer_deliveries(items, "w1").value(), 2);
  auto d = store_->get_delivery(claimed[0].id).value();
  EXPECT_EQ(d.status, DeliveryStatus::kPending);
  EXPECT_EQ(d.attempts, 0);
  EXPECT_EQ(d.next_attempt_at, later);
  EXPECT_FALSE(d.lease_owner.has_value());
  EXPECT_TRUE(claim("w2").empty());  // not due yet
  clock_.advance(5'000);
  EXPECT_EQ(claim("w2").size(), 2u);
}

TEST_P(QueueTest, DisabledEndpointIsNotClaimed) {
  publish(app_.id, "e");
  ASSERT_TRUE(store_->set_endpoint_disabled(app_.id, ep_.id, true, "x", std::nullopt));
  EXPECT_TRUE(claim("w1").empty());
  ASSERT_TRUE(store_->set_endpoint_disabled(app_.id, ep_.id, false, std::nullopt, std::nullopt));
  EXPECT_EQ(claim("w1").size(), 1u);
}

class FifoTest : public StoreContract {
 protected:
  void SetUp() override {
    StoreContract::SetUp();
    app_ = make_app();
    fifo_ = make_endpoint(app_.id, [](Endpoint& e) { e.fifo = true; });
  }
  Message publish_keyed(const std::string& key) {
    return publish(app_.id, "e", [&](NewMessage& m) { m.ordering_key = key; }).message;
  }
  Application app_;
  Endpoint fifo_;
};

TEST_P(FifoTest, OnlyTheHeadOfEachOrderingKeyIsClaimable) {
  auto a1 = publish_keyed("a");
  auto a2 = publish_keyed("a");
  auto b1 = publish_keyed("b");
  publish(app_.id, "e");  // no key: never blocked
  auto got = claim("w1");
  ASSERT_EQ(got.size(), 3u);
  std::vector<std::string> msgs;
  for (auto& d : got) msgs.push_back(d.msg_id);
  EXPECT_NE(std::find(msgs.begin(), msgs.end(), a1.id), msgs.end());
  EXPECT_NE(std::find(msgs.begin(), msgs.end(), b1.id), msgs.end());
  EXPECT_EQ(std::find(msgs.begin(), msgs.end(), a2.id), msgs.end());
}

TEST_P(FifoTest, NextWaitsUntilPreviousDeliveredOrDead) {
  publish_keyed("a");
  auto a2 = publish_keyed("a");
  auto a3 = publish_keyed("a");
  auto head = claim("w1").at(0);
  // The head fails and waits for a retry: the rest stay blocked, even when due.
  report(head, Next::kRetry, clock_.now_ms() + 10'000);
  clock_.advance(5'000);
  EXPECT_TRUE(claim("w1").empty());
  clock_.advance(5'000);
  head = claim("w1").at(0);
  EXPECT_EQ(head.sequence, 1);
  report(head, Next::kDelivered);
  auto second = claim("w1");
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].msg_id, a2.id);
  report(second[0], Next::kDead, 0, 400);  // dead-lettered also unblocks
  auto third = claim("w1");
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0].msg_id, a3.id);
  EXPECT_EQ(third[0].sequence, 3);
}

TEST_P(FifoTest, NonFifoEndpointIsNotBlocked) {
  auto plain = make_endpoint(app_.id);
  publish_keyed("a");
  publish_keyed("a");
  auto got = claim("w1");
  int plain_count = 0;
  for (auto& d : got) plain_count += d.endpoint_id == plain.id ? 1 : 0;
  EXPECT_EQ(plain_count, 2);
  EXPECT_EQ(got.size(), 3u);  // 2 plain + the FIFO head
}

INSTANTIATE_TEST_SUITE_P(Store, QueueTest, ::testing::ValuesIn(all_factories()), factory_name);
INSTANTIATE_TEST_SUITE_P(Store, FifoTest, ::testing::ValuesIn(all_factories()), factory_name);

}  // namespace
}  // namespace hookd::store::testing

namespace hookd::store::testing {
namespace {

TEST_P(StoreContract, RecordAttemptsBatchHasPerItemResults) {
  auto app = make_app();
  make_endpoint(app.id);
  publish(app.id, "e");
  publish(app.id, "e");
  auto mine = claim("w1", 1, 1000).at(0);
  auto also_mine = claim("w1", 1).at(0);
  clock_.advance(1000);
  claim("w2");  // steals `mine` (its lease expired)
  std::vector<AttemptReport> reports(2);
  reports[0].delivery_id = mine.id;
  reports[0].lease_owner = "w1";
  reports[0].next = AttemptReport::Next::kDelivered;
  reports[1].delivery_id = also_mine.id;
  reports[1].lease_owner = "w1";
  reports[1].next = AttemptReport::Next::kDelivered;
  auto r = store_->record_attempts(reports);
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->size(), 2u);
  ASSERT_FALSE((*r)[0].has_value());
  EXPECT_EQ((*r)[0].error().code, ErrorCode::kConflict);
  ASSERT_TRUE((*r)[1].has_value());
  EXPECT_EQ((*r)[1]->status, DeliveryStatus::kDelivered);
  EXPECT_EQ(store_->get_delivery(mine.id)->lease_owner, "w2");
  EXPECT_EQ(store_->list_attempts_by_endpoint(mine.endpoint_id, PageRequest{})->data.size(), 1u);
}

}  // namespace
}  // namespace hookd::store::testing

namespace hookd::store::testing {
namespace {

// "Events waiting too long": the oldest waiting delivery's publish time, pending or leased,
// until it settles; none once every delivery is delivered or dead.
TEST_P(QueueTest, OldestWaitingDeliveryIsTheOldestUnsettledOne) {
  EXPECT_EQ(store_->oldest_waiting_delivery().value(), std::nullopt);
  const auto t0 = clock_.now_ms();
  publish(app_.id, "e");
  clock_.advance(1000);
  publish(app_.id, "e");
  EXPECT_EQ(store_->oldest_waiting_delivery().value(), t0);
  auto leased = claim("w1");  // delivering still waits
  ASSERT_EQ(leased.size(), 2u);
  EXPECT_EQ(store_->oldest_waiting_delivery().value(), t0);
  const auto& first = leased[0].created_at == t0 ? leased[0] : leased[1];
  const auto& second = leased[0].created_at == t0 ? leased[1] : leased[0];
  report(first, Next::kDelivered);
  EXPECT_EQ(store_->oldest_waiting_delivery().value(), t0 + 1000);
  report(second, Next::kDead);
  EXPECT_EQ(store_->oldest_waiting_delivery().value(), std::nullopt);
}

}  // namespace
}  // namespace hookd::store::testing
