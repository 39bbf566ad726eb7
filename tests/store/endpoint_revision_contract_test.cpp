// Contract: endpoint revisions. Every change of an endpoint row raises its revision, and a
// claim returns each delivery with its endpoint's current revision, so a dispatcher holding
// an older copy of the endpoint knows it must re-read it before sending (issue 12 part 4:
// a rotation or a new URL applies to every message published after the API's answer).
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

class EndpointRevisionTest : public StoreContract {
 protected:
  void SetUp() override {
    StoreContract::SetUp();
    app_ = make_app();
    ep_ = make_endpoint(app_.id);
  }
  std::int64_t revision() { return store_->get_endpoint(app_.id, ep_.id).value().revision; }

  Application app_;
  Endpoint ep_;
};

TEST_P(EndpointRevisionTest, EveryChangeRaisesTheRevision) {
  EXPECT_EQ(ep_.revision, 1);
  EXPECT_EQ(revision(), 1);

  Endpoint changed = store_->get_endpoint(app_.id, ep_.id).value();
  changed.url = "http://127.0.0.1:9/other";
  ASSERT_TRUE(store_->update_endpoint(changed).has_value());
  EXPECT_EQ(revision(), 2);

  auto rotated = store_->rotate_endpoint_secret(app_.id, ep_.id,
                                                "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", 60'000);
  ASSERT_TRUE(rotated.has_value());
  EXPECT_EQ(rotated->revision, 3);

  ASSERT_TRUE(store_->set_endpoint_disabled(app_.id, ep_.id, true, "test", std::nullopt));
  ASSERT_TRUE(store_->set_endpoint_disabled(app_.id, ep_.id, false, std::nullopt, std::nullopt));
  EXPECT_EQ(revision(), 5);

  // The caller's copy does not decide the revision; the row does.
  Endpoint stale = changed;
  stale.revision = 1;
  auto updated = store_->update_endpoint(stale);
  ASSERT_TRUE(updated.has_value());
  EXPECT_EQ(updated->revision, 6);
}

TEST_P(EndpointRevisionTest, AClaimReturnsTheEndpointsCurrentRevision) {
  publish(app_.id, "before");
  auto first = claim("w1");
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].endpoint_revision, 1);

  // Changed, then a message published: its claim carries the new revision.
  ASSERT_TRUE(store_->rotate_endpoint_secret(app_.id, ep_.id,
                                             "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", 60'000));
  publish(app_.id, "after");
  auto second = claim("w1");
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].endpoint_revision, 2);

  // Reading a delivery outside a claim says nothing about the endpoint.
  EXPECT_FALSE(store_->get_delivery(second[0].id)->endpoint_revision.has_value());
}

TEST_P(EndpointRevisionTest, TheDispatchRoundsClaimReturnsTheRevisionToo) {
  Endpoint changed = store_->get_endpoint(app_.id, ep_.id).value();
  changed.url = "http://127.0.0.1:9/new";
  ASSERT_TRUE(store_->update_endpoint(changed).has_value());
  publish(app_.id, "e");
  DispatchRound round;
  round.lease_owner = "w1";
  round.claim_limit = 10;
  auto r = store_->dispatch_round(round);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->claimed.size(), 1u);
  EXPECT_EQ(r->claimed[0].endpoint_revision, 2);
  ASSERT_EQ(r->messages.size(), 1u);
  ASSERT_TRUE(r->messages[0].has_value());  // the message columns still line up
  EXPECT_EQ(r->messages[0]->event_type, "e");
}

INSTANTIATE_TEST_SUITE_P(Store, EndpointRevisionTest, ::testing::ValuesIn(all_factories()),
                         factory_name);

}  // namespace
}  // namespace hookd::store::testing
