// Contract: the inbound inbox — dedup on (source, event id), batch insert, per-entity
// ordered claim, status changes with history and entity state.
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

InboxEvent inbound(const std::string& event_id, std::optional<std::string> entity = {},
                   std::optional<std::int64_t> seq = {}) {
  InboxEvent e;
  e.source = "esign";
  e.event_id = event_id;
  e.entity_key = std::move(entity);
  e.sequence = seq;
  e.business_key = "contract:" + event_id;
  e.headers = {{"webhook-id", event_id}};
  e.payload = R"({"id":")" + event_id + "\"}";
  return e;
}

InboxStatusUpdate done(const InboxEvent& e, InboxStatus to = InboxStatus::kProcessed) {
  InboxStatusUpdate u;
  u.id = e.id;
  u.lease_owner = e.lease_owner.value_or("");
  u.to = to;
  u.note = "forwarded";
  u.count_attempt = true;
  return u;
}

std::vector<std::string> event_ids(const std::vector<InboxEvent>& evs) {
  std::vector<std::string> out;
  for (const auto& e : evs) out.push_back(e.event_id);
  std::sort(out.begin(), out.end());
  return out;
}

TEST_P(StoreContract, InboxDedupsOnSourceAndEventId) {  // inbound dedup
  auto first = store_->inbox_insert(inbound("evt-1"));
  ASSERT_TRUE(first.has_value());
  EXPECT_TRUE(first->inserted);
  auto again = store_->inbox_insert(inbound("evt-1"));
  ASSERT_TRUE(again.has_value());
  EXPECT_FALSE(again->inserted);
  EXPECT_EQ(again->id, first->id);
  auto other_source = inbound("evt-1");
  other_source.source = "github";
  EXPECT_TRUE(store_->inbox_insert(other_source)->inserted);

  auto row = store_->inbox_find("esign", "evt-1");
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->status, InboxStatus::kReceived);
  EXPECT_EQ(row->received_at, clock_.now_ms());
  EXPECT_EQ(row->business_key, "contract:evt-1");
  EXPECT_EQ(row->headers.at("webhook-id"), "evt-1");
  EXPECT_EQ(store_->inbox_history(row->id)->size(), 1u);
}

TEST_P(StoreContract, InboxBatchInsertReportsEachItem) {
  store_->inbox_insert(inbound("a"));
  auto r = store_->inbox_insert_batch({inbound("a"), inbound("b"), inbound("b")});
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_FALSE((*r)[0].inserted);
  EXPECT_TRUE((*r)[1].inserted);
  EXPECT_FALSE((*r)[2].inserted);
  EXPECT_EQ((*r)[2].id, (*r)[1].id);
  EXPECT_EQ(store_->inbox_list(InboxFilter{}, PageRequest{})->data.size(), 2u);
}

TEST_P(StoreContract, InboxClaimsOneEventPerEntityInSequenceOrder) {
  // Received out of order: seq 2 before seq 1.
  store_->inbox_insert(inbound("c1-s2", "contract-1", 2));
  clock_.advance(1);
  store_->inbox_insert(inbound("c1-s1", "contract-1", 1));
  store_->inbox_insert(inbound("c2-s1", "contract-2", 1));
  store_->inbox_insert(inbound("free-1"));
  store_->inbox_insert(inbound("free-2"));
  InboxClaimRequest req;
  req.lease_owner = "fw";
  auto got = store_->inbox_claim(req);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(event_ids(*got), (std::vector<std::string>{"c1-s1", "c2-s1", "free-1", "free-2"}));
  EXPECT_TRUE(store_->inbox_claim(req)->empty());
  for (const auto& e : *got) {
    EXPECT_EQ(e.status, InboxStatus::kProcessing);
    ASSERT_TRUE(store_->inbox_update_status(done(e)).has_value());
  }
  auto next = store_->inbox_claim(req);
  ASSERT_EQ(next->size(), 1u);
  EXPECT_EQ(next->at(0).event_id, "c1-s2");
}

TEST_P(StoreContract, InboxParkedOrRetryingHeadBlocksItsEntity) {
  store_->inbox_insert(inbound("s1", "k", 1));
  store_->inbox_insert(inbound("s2", "k", 2));
  InboxClaimRequest req;
  req.lease_owner = "fw";
  auto head = store_->inbox_claim(req)->at(0);
  auto park = done(head, InboxStatus::kParked);
  park.next_attempt_at = clock_.now_ms() + 1000;
  ASSERT_TRUE(store_->inbox_update_status(park).has_value());
  EXPECT_TRUE(store_->inbox_claim(req)->empty());
  clock_.advance(1000);
  EXPECT_EQ(store_->inbox_claim(req)->at(0).event_id, "s1");
}

TEST_P(StoreContract, InboxStatusUpdateNeedsTheLeaseAndKeepsHistory) {
  auto id = store_->inbox_insert(inbound("evt", "k", 7))->id;
  InboxClaimRequest req;
  req.lease_owner = "fw1";
  req.lease_ms = 1000;
  auto mine = store_->inbox_claim(req)->at(0);
  clock_.advance(1000);
  req.lease_owner = "fw2";
  auto theirs = store_->inbox_claim(req)->at(0);  // lease expired: reclaimed
  EXPECT_EQ(store_->inbox_update_status(done(mine)).error().code, ErrorCode::kConflict);

  auto u = done(theirs);
  InboxEntity entity;
  entity.source = "esign";
  entity.entity_key = "k";
  entity.last_sequence = 7;
  entity.state = "signed";
  entity.terminal = true;
  u.entity = entity;
  auto r = store_->inbox_update_status(u);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, InboxStatus::kProcessed);
  EXPECT_EQ(r->processed_at, clock_.now_ms());
  EXPECT_EQ(r->attempts, 1);
  auto history = store_->inbox_history(id).value();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[1].from, InboxStatus::kProcessing);
  EXPECT_EQ(history[1].to, InboxStatus::kProcessed);
  EXPECT_EQ(history[1].note, "forwarded");
  auto stored = store_->inbox_entity("esign", "k");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->last_sequence, 7);
  EXPECT_EQ(stored->state, "signed");
  EXPECT_TRUE(stored->terminal);
  EXPECT_EQ(store_->inbox_entity("esign", "nope").error().code, ErrorCode::kNotFound);
}

TEST_P(StoreContract, InboxListFiltersBySourceAndStatus) {
  store_->inbox_insert(inbound("a"));
  auto gh = inbound("b");
  gh.source = "github";
  store_->inbox_insert(gh);
  store_->inbox_insert(inbound("c", "contract-9"));
  InboxFilter by_source;
  by_source.source = "github";
  InboxFilter received;
  received.status = InboxStatus::kReceived;
  InboxFilter processed;
  processed.status = InboxStatus::kProcessed;
  InboxFilter entity;
  entity.entity_key = "contract-9";
  EXPECT_EQ(store_->inbox_list(by_source, PageRequest{})->data.size(), 1u);
  EXPECT_EQ(store_->inbox_list(received, PageRequest{})->data.size(), 3u);
  EXPECT_TRUE(store_->inbox_list(processed, PageRequest{})->data.empty());
  auto by_entity = store_->inbox_list(entity, PageRequest{});
  ASSERT_EQ(by_entity->data.size(), 1u);
  EXPECT_EQ(by_entity->data[0].event_id, "c");
}

TEST_P(StoreContract, InboxSettlingAnEventReleasesItsParkedDependents) {  // A21
  auto dependent = inbound("child");
  dependent.depends_on = {"parent"};
  store_->inbox_insert(dependent);
  InboxClaimRequest req;
  req.lease_owner = "fw";
  auto child = store_->inbox_claim(req)->at(0);
  auto park = done(child, InboxStatus::kParked);
  park.next_attempt_at = clock_.now_ms() + 3'600'000;
  ASSERT_TRUE(store_->inbox_update_status(park).has_value());
  EXPECT_TRUE(store_->inbox_claim(req)->empty());

  store_->inbox_insert(inbound("parent"));
  auto parent = store_->inbox_claim(req)->at(0);
  EXPECT_EQ(parent.event_id, "parent");
  ASSERT_TRUE(store_->inbox_update_status(done(parent)).has_value());
  auto released = store_->inbox_claim(req);
  ASSERT_EQ(released->size(), 1u);
  EXPECT_EQ(released->at(0).event_id, "child");
  EXPECT_EQ(released->at(0).depends_on, (std::vector<std::string>{"parent"}));
}

TEST_P(StoreContract, InboxBusinessKeyProcessedOnlyAfterSuccess) {  // A11
  store_->inbox_insert(inbound("one"));
  EXPECT_FALSE(store_->inbox_business_key_processed("esign", "contract:one").value());
  InboxClaimRequest req;
  req.lease_owner = "fw";
  auto e = store_->inbox_claim(req)->at(0);
  ASSERT_TRUE(store_->inbox_update_status(done(e, InboxStatus::kDead)).has_value());
  EXPECT_FALSE(store_->inbox_business_key_processed("esign", "contract:one").value());
  store_->inbox_insert(inbound("two"));
  auto two = store_->inbox_claim(req)->at(0);
  ASSERT_TRUE(store_->inbox_update_status(done(two)).has_value());
  EXPECT_TRUE(store_->inbox_business_key_processed("esign", "contract:two").value());
  EXPECT_FALSE(store_->inbox_business_key_processed("github", "contract:two").value());
}

TEST_P(StoreContract, InboxReleaseLeasesMakesLeasedEventsDueAgain) {
  store_->inbox_insert(inbound("a"));
  store_->inbox_insert(inbound("b"));
  InboxClaimRequest req;
  req.lease_owner = "node-1/forwarder";
  ASSERT_EQ(store_->inbox_claim(req)->size(), 2u);
  EXPECT_EQ(store_->inbox_release_leases("someone-else").value(), 0);
  EXPECT_EQ(store_->inbox_release_leases("node-1/forwarder").value(), 2);
  req.lease_owner = "node-2/forwarder";
  auto again = store_->inbox_claim(req);
  ASSERT_EQ(again->size(), 2u);
  EXPECT_EQ(again->at(0).lease_owner, "node-2/forwarder");
}

TEST_P(StoreContract, InboxDuplicateBusinessKeyIsASettledStatus) {
  store_->inbox_insert(inbound("d"));
  InboxClaimRequest req;
  req.lease_owner = "fw";
  auto e = store_->inbox_claim(req)->at(0);
  auto r = store_->inbox_update_status(done(e, InboxStatus::kDuplicate));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, InboxStatus::kDuplicate);
  EXPECT_TRUE(r->processed_at.has_value());
  EXPECT_EQ(to_string(InboxStatus::kDuplicate), "duplicate-business-key");
}

TEST_P(StoreContract, InboxStatusBatchIsOneTransactionWithPerItemConflicts) {
  store_->inbox_insert(inbound("a", "k1", 1));
  store_->inbox_insert(inbound("b", "k2", 1));
  InboxClaimRequest req;
  req.lease_owner = "fw";
  auto claimed = store_->inbox_claim(req).value();
  ASSERT_EQ(claimed.size(), 2u);
  auto lost = done(claimed[1]);
  lost.lease_owner = "someone-else";
  auto r = store_->inbox_update_status_batch({done(claimed[0]), lost});
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_TRUE((*r)[0].has_value());
  EXPECT_EQ((*r)[1].error().code, ErrorCode::kConflict);
  EXPECT_EQ(store_->inbox_get(claimed[0].id)->status, InboxStatus::kProcessed);
  EXPECT_EQ(store_->inbox_get(claimed[1].id)->status, InboxStatus::kProcessing);
  EXPECT_EQ(store_->inbox_history(claimed[0].id)->size(), 2u);
}

}  // namespace
}  // namespace hookd::store::testing

namespace hookd::store::testing {
namespace {

TEST_P(StoreContract, InboxOldestWaitingIsTheOldestUnsettledEvent) {
  EXPECT_EQ(store_->inbox_oldest_waiting().value(), std::nullopt);
  const auto t0 = clock_.now_ms();
  store_->inbox_insert(inbound("old"));
  clock_.advance(2000);
  store_->inbox_insert(inbound("new"));
  EXPECT_EQ(store_->inbox_oldest_waiting().value(), t0);
  InboxClaimRequest req;
  req.lease_owner = "fw";
  auto got = store_->inbox_claim(req);
  ASSERT_TRUE(got.has_value());
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ(store_->inbox_oldest_waiting().value(), t0);  // processing still waits
  for (const auto& e : *got) {
    if (e.event_id == "old") {
      ASSERT_TRUE(store_->inbox_update_status(done(e)).has_value());
    }
  }
  EXPECT_EQ(store_->inbox_oldest_waiting().value(), t0 + 2000);
  for (const auto& e : *got) {
    if (e.event_id == "new") {
      ASSERT_TRUE(store_->inbox_update_status(done(e, InboxStatus::kDead)).has_value());
    }
  }
  EXPECT_EQ(store_->inbox_oldest_waiting().value(), std::nullopt);
}

}  // namespace
}  // namespace hookd::store::testing
