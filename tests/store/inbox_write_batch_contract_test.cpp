// Contract: inbox_write_batch — the receiver's queued events and the forwarder's round in one
// call: events first (new and duplicate answered per event), then the round, whose claim
// already sees the events just stored.
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

InboxEvent batch_event(const std::string& event_id) {
  InboxEvent e;
  e.source = "esign";
  e.event_id = event_id;
  e.payload = R"({"id":")" + event_id + "\"}";
  return e;
}

class InboxWriteBatchTest : public StoreContract {};

TEST_P(InboxWriteBatchTest, StoresTheEventsThenRunsTheRoundWhoseClaimSeesThem) {
  store_->inbox_insert(batch_event("old"));
  InboxClaimRequest req;
  req.lease_owner = "fw";
  auto held = store_->inbox_claim(req).value().at(0);

  InboxWriteBatch batch;
  batch.inserts = {batch_event("new"), batch_event("old"), batch_event("new")};
  InboxRound round;
  InboxStatusUpdate done;
  done.id = held.id;
  done.lease_owner = "fw";
  done.to = InboxStatus::kProcessed;
  done.note = "forwarded";
  round.updates = {done};
  round.lease_owner = "fw";
  round.claim_limit = 10;
  batch.round = round;

  auto r = store_->inbox_write_batch(batch);
  ASSERT_TRUE(r.inserted.has_value()) << r.inserted.error().message;
  ASSERT_EQ(r.inserted->size(), 3u);
  EXPECT_TRUE((*r.inserted)[0].inserted);
  EXPECT_FALSE((*r.inserted)[1].inserted);  // duplicate of a stored event
  EXPECT_EQ((*r.inserted)[1].id, held.id);
  EXPECT_FALSE((*r.inserted)[2].inserted);  // duplicate within the batch
  EXPECT_EQ((*r.inserted)[2].id, (*r.inserted)[0].id);
  ASSERT_TRUE(r.round.has_value());
  ASSERT_TRUE(r.round->has_value()) << r.round->error().message;
  ASSERT_EQ((*r.round)->updated.size(), 1u);
  ASSERT_TRUE((*r.round)->updated[0].has_value());
  ASSERT_EQ((*r.round)->claimed.size(), 1u);
  EXPECT_EQ((*r.round)->claimed[0].event_id, "new");
  EXPECT_EQ(store_->inbox_get(held.id)->status, InboxStatus::kProcessed);
  EXPECT_EQ(store_->inbox_find("esign", "new")->status, InboxStatus::kProcessing);
}

TEST_P(InboxWriteBatchTest, EventsAloneAndARoundAlone) {
  InboxWriteBatch events;
  events.inserts = {batch_event("a"), batch_event("b")};
  auto stored = store_->inbox_write_batch(events);
  ASSERT_TRUE(stored.inserted.has_value());
  EXPECT_EQ(stored.inserted->size(), 2u);
  EXPECT_FALSE(stored.round.has_value());

  InboxWriteBatch round_only;
  InboxRound round;
  round.lease_owner = "fw";
  round.claim_limit = 10;
  round_only.round = round;
  auto claimed = store_->inbox_write_batch(round_only);
  ASSERT_TRUE(claimed.inserted.has_value());
  EXPECT_TRUE(claimed.inserted->empty());
  ASSERT_TRUE(claimed.round.has_value());
  ASSERT_TRUE(claimed.round->has_value());
  EXPECT_EQ((*claimed.round)->claimed.size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Store, InboxWriteBatchTest, ::testing::ValuesIn(all_factories()),
                         factory_name);

}  // namespace
}  // namespace hookd::store::testing
