// Contract: the dead-letter queue (list with filters, replay, discard — each audited in the
// same transaction), resend and recover.
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using Next = AttemptReport::Next;

class DlqTest : public StoreContract {
 protected:
  void SetUp() override {
    StoreContract::SetUp();
    app_ = make_app();
    ep_ = make_endpoint(app_.id);
  }
  // Publishes one message and dead-letters its delivery to ep_.
  Delivery dead_one() {
    auto msg = publish(app_.id, "e").message;
    for (auto& d : claim("w1")) {
      if (d.msg_id == msg.id) return report(d, Next::kDead, 0, 404);
      report(d, Next::kDelivered, 0, 200);
    }
    ADD_FAILURE() << "nothing claimed";
    return {};
  }
  std::vector<std::string> dead_ids(const DeadLetterFilter& f) {
    std::vector<std::string> out;
    auto page = store_->list_dead(f, PageRequest{});
    EXPECT_TRUE(page.has_value());
    for (auto& d : page->data) out.push_back(d.id);
    return out;
  }
  Application app_;
  Endpoint ep_;
};

TEST_P(DlqTest, ListFiltersByAppEndpointAndTime) {
  auto d1 = dead_one();
  clock_.advance(10'000);
  auto d2 = dead_one();
  auto other_app = make_app("other");
  make_endpoint(other_app.id);
  publish(other_app.id, "e");
  report(claim("w1").at(0), Next::kDead);

  EXPECT_EQ(dead_ids(DeadLetterFilter{}).size(), 3u);
  DeadLetterFilter by_app;
  by_app.app_id = app_.id;
  EXPECT_EQ(dead_ids(by_app), (std::vector<std::string>{d1.id, d2.id}));
  DeadLetterFilter by_ep;
  by_ep.endpoint_id = ep_.id;
  by_ep.since = clock_.now_ms() - 5'000;
  EXPECT_EQ(dead_ids(by_ep), (std::vector<std::string>{d2.id}));
  DeadLetterFilter until;
  until.app_id = app_.id;
  until.until = clock_.now_ms() - 5'000;
  EXPECT_EQ(dead_ids(until), (std::vector<std::string>{d1.id}));
}

TEST_P(DlqTest, ReplayResetsDeliveryAndAuditsInSameCall) {
  auto d = dead_one();
  clock_.advance(1000);
  auto n = store_->replay_dead({d.id}, std::nullopt, audit_entry("dlq.replay", "", "fixed"));
  ASSERT_TRUE(n.has_value()) << n.error().message;
  EXPECT_EQ(*n, 1);
  auto after = store_->get_delivery(d.id).value();
  EXPECT_EQ(after.status, DeliveryStatus::kPending);
  EXPECT_EQ(after.attempts, 0);
  EXPECT_EQ(after.next_attempt_at, clock_.now_ms());
  EXPECT_TRUE(dead_ids(DeadLetterFilter{}).empty());
  auto log = store_->list_audit(audit_by_target(d.id), PageRequest{})->data;
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].action, "dlq.replay");
  EXPECT_EQ(log[0].reason, "fixed");
  EXPECT_EQ(log[0].actor, "ops@example");
  EXPECT_NE(log[0].before->find("dead"), std::string::npos);
  EXPECT_NE(log[0].after->find("pending"), std::string::npos);
  EXPECT_EQ(claim("w1").size(), 1u);  // back in the queue
}

TEST_P(DlqTest, ReplayOfANonDeadDeliveryChangesNothing) {
  auto dead = dead_one();
  publish(app_.id, "e");  // pending
  auto pending = store_->list_deliveries_for_message(
      store_->list_messages(app_.id, MessageFilter{}, PageRequest{})->data.back().id);
  auto r =
      store_->replay_dead({dead.id, pending->at(0).id}, std::nullopt, audit_entry("dlq.replay"));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kConflict);
  EXPECT_EQ(store_->get_delivery(dead.id)->status, DeliveryStatus::kDead);  // rolled back
  EXPECT_TRUE(store_->list_audit(AuditFilter{}, PageRequest{})->data.empty());
}

TEST_P(DlqTest, ReplayToACorrectedEndpoint) {
  auto d = dead_one();
  auto fixed = make_endpoint(app_.id, [](Endpoint& e) { e.url = "https://fixed.example/"; });
  auto foreign = make_endpoint(make_app("x").id);
  EXPECT_EQ(store_->replay_dead({d.id}, foreign.id, audit_entry("dlq.replay")).error().code,
            ErrorCode::kNotFound);
  ASSERT_TRUE(store_->replay_dead({d.id}, fixed.id, audit_entry("dlq.replay")).has_value());
  EXPECT_EQ(store_->get_delivery(d.id)->endpoint_id, fixed.id);
}

TEST_P(DlqTest, DiscardIsFinalAndAudited) {
  auto d = dead_one();
  ASSERT_EQ(store_->discard_dead({d.id}, audit_entry("dlq.discard", "", "spam")).value(), 1);
  EXPECT_EQ(store_->get_delivery(d.id)->status, DeliveryStatus::kDiscarded);
  EXPECT_TRUE(dead_ids(DeadLetterFilter{}).empty());
  EXPECT_TRUE(claim("w1").empty());
  EXPECT_EQ(store_->list_audit(audit_by_action("dlq.discard"), PageRequest{})->data.size(), 1u);
  EXPECT_EQ(store_->discard_dead({d.id}, audit_entry("dlq.discard")).error().code,
            ErrorCode::kConflict);
}

TEST_P(DlqTest, ResendCreatesANewDelivery) {
  auto msg = publish(app_.id, "e").message;
  report(claim("w1").at(0), Next::kDelivered, 0, 200);
  auto r = store_->resend(msg.id, ep_.id);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, DeliveryStatus::kPending);
  EXPECT_EQ(store_->list_deliveries_for_message(msg.id)->size(), 2u);
  EXPECT_EQ(claim("w1").size(), 1u);
  EXPECT_EQ(store_->resend("msg_missing", ep_.id).error().code, ErrorCode::kNotFound);
}

TEST_P(DlqTest, RecoverRequeuesDeadSince) {
  dead_one();
  clock_.advance(60'000);
  const auto since = clock_.now_ms();
  dead_one();
  dead_one();
  EXPECT_EQ(store_->recover(ep_.id, since).value(), 2);
  EXPECT_EQ(dead_ids(DeadLetterFilter{}).size(), 1u);
  EXPECT_EQ(claim("w1").size(), 2u);
}

// Svix recover with `until`: only failures created in [since, until) go back to pending.
TEST_P(DlqTest, RecoverHonoursUntil) {
  const auto t0 = clock_.now_ms();
  dead_one();  // at t0: before the window
  clock_.advance(10'000);
  const auto since = clock_.now_ms();
  dead_one();  // at since: inside
  clock_.advance(10'000);
  dead_one();  // at since + 10 s: inside
  clock_.advance(10'000);
  const auto until = clock_.now_ms();
  dead_one();  // at until: outside (exclusive)
  EXPECT_EQ(store_->recover(ep_.id, since, until).value(), 2);
  EXPECT_EQ(dead_ids(DeadLetterFilter{}).size(), 2u);
  EXPECT_EQ(store_->recover(ep_.id, t0, since).value(), 1);
  EXPECT_EQ(store_->recover(ep_.id, since, until).value(), 0) << "already pending";
  EXPECT_EQ(dead_ids(DeadLetterFilter{}).size(), 1u);
  EXPECT_EQ(claim("w1").size(), 3u);
}

// A dead letter after HTTP failures says why: the last status and the start of the body.
TEST_P(DlqTest, DeadLetterKeepsTheLastHttpFailureAsLastError) {
  publish(app_.id, "e");
  auto claimed = claim("w1");
  ASSERT_EQ(claimed.size(), 1u);
  AttemptReport rep;
  rep.delivery_id = claimed[0].id;
  rep.lease_owner = "w1";
  rep.attempt.response_status = 500;
  rep.attempt.response_body = "upstream\n  exploded: " + std::string(400, 'x');
  rep.next = Next::kDead;
  auto dead = store_->record_attempt(rep);
  ASSERT_TRUE(dead.has_value()) << dead.error().message;
  const std::string expected = "HTTP 500: upstream exploded: " + std::string(200 - 19, 'x');
  EXPECT_EQ(dead->last_error, expected);
  EXPECT_EQ(dead->last_response_status, 500);
  auto listed = store_->list_dead(DeadLetterFilter{}, PageRequest{});
  ASSERT_TRUE(listed.has_value());
  ASSERT_EQ(listed->data.size(), 1u);
  EXPECT_EQ(listed->data[0].last_error, expected);
  EXPECT_EQ(store_->get_delivery(dead->id)->last_error, expected);
}

INSTANTIATE_TEST_SUITE_P(Store, DlqTest, ::testing::ValuesIn(all_factories()), factory_name);

}  // namespace
}  // namespace hookd::store::testing
