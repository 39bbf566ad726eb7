// Contract: the forwarder's round trip (status changes + the next claim in one call, the
// dead event's audit entry in the same transaction as its status) and the operator's replay
// of a dead inbox event.
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

InboxEvent event(const std::string& event_id, std::optional<std::string> entity = {},
                 std::optional<std::int64_t> seq = {}) {
  InboxEvent e;
  e.source = "esign";
  e.event_id = event_id;
  e.entity_key = std::move(entity);
  e.sequence = seq;
  e.payload = R"({"id":")" + event_id + "\"}";
  return e;
}

InboxStatusUpdate change(const InboxEvent& e, InboxStatus to) {
  InboxStatusUpdate u;
  u.id = e.id;
  u.lease_owner = e.lease_owner.value_or("");
  u.to = to;
  u.note = std::string(to_string(to));
  u.count_attempt = true;
  return u;
}

AuditEntry dead_audit(const std::string& id) {
  AuditEntry a;
  a.actor = "hookd";
  a.action = "inbox.dead";
  a.target_type = "inbox_event";
  a.target_id = id;
  a.reason = "max attempts";
  return a;
}

std::vector<InboxEvent> claim_all(Store& store, const std::string& owner) {
  InboxClaimRequest req;
  req.lease_owner = owner;
  return store.inbox_claim(req).value();
}

class InboxRoundTest : public StoreContract {};

TEST_P(InboxRoundTest, WritesTheUpdatesThenClaimsWhatTheyUnblocked) {
  store_->inbox_insert(event("a1", "k1", 1));
  store_->inbox_insert(event("a2", "k1", 2));
  store_->inbox_insert(event("b1", "k2", 1));
  auto held = claim_all(*store_, "fw");
  ASSERT_EQ(held.size(), 2u);  // the heads: a1, b1
  const auto& a1 = held[0].event_id == "a1" ? held[0] : held[1];
  const auto& b1 = held[0].event_id == "a1" ? held[1] : held[0];
  auto lost = change(b1, InboxStatus::kProcessed);
  lost.lease_owner = "someone-else";

  InboxRound round;
  round.updates = {change(a1, InboxStatus::kProcessed), lost};
  round.lease_owner = "fw";
  round.claim_limit = 10;
  auto r = store_->inbox_round(round);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->updated.size(), 2u);
  ASSERT_TRUE(r->updated[0].has_value());
  EXPECT_EQ(r->updated[0]->status, InboxStatus::kProcessed);
  EXPECT_EQ(r->updated[1].error().code, ErrorCode::kConflict);
  // a1 settled in this very round, so a2 (next of k1) is claimable; b1 is still leased.
  ASSERT_EQ(r->claimed.size(), 1u);
  EXPECT_EQ(r->claimed[0].event_id, "a2");
  EXPECT_EQ(r->claimed[0].lease_owner, "fw");
  EXPECT_EQ(store_->inbox_get(b1.id)->status, InboxStatus::kProcessing);
}

TEST_P(InboxRoundTest, EmptyRoundAndUpdateOnlyRoundClaimNothing) {
  store_->inbox_insert(event("a"));
  auto r = store_->inbox_round(InboxRound{});
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->updated.empty());
  EXPECT_TRUE(r->claimed.empty());
  EXPECT_EQ(claim_all(*store_, "fw").size(), 1u);  // still due: nothing was claimed above
}

TEST_P(InboxRoundTest, DeadEventsAuditEntryIsWrittenWithItsStatusOnly) {
  store_->inbox_insert(event("a"));
  store_->inbox_insert(event("b"));
  auto held = claim_all(*store_, "fw");
  ASSERT_EQ(held.size(), 2u);
  auto dead = change(held[0], InboxStatus::kDead);
  dead.audit = dead_audit(held[0].id);
  auto lost = change(held[1], InboxStatus::kDead);
  lost.lease_owner = "someone-else";
  lost.audit = dead_audit(held[1].id);
  InboxRound round;
  round.updates = {dead, lost};
  auto r = store_->inbox_round(round);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_TRUE(r->updated[0].has_value());
  EXPECT_FALSE(r->updated[1].has_value());
  EXPECT_EQ(store_->inbox_get(held[0].id)->status, InboxStatus::kDead);
  AuditFilter filter;
  filter.action = "inbox.dead";
  auto log = store_->list_audit(filter, PageRequest{}).value().data;
  ASSERT_EQ(log.size(), 1u);  // the lost-lease update wrote no audit row
  EXPECT_EQ(log[0].target_id, held[0].id);
  EXPECT_EQ(log[0].reason, "max attempts");
}

TEST_P(InboxRoundTest, ReplayDeadMakesItDueAgainWithHistoryAndAudit) {
  auto id = store_->inbox_insert(event("a", "k", 1))->id;
  auto held = claim_all(*store_, "fw").at(0);
  auto dead = change(held, InboxStatus::kDead);
  dead.error = "HTTP 500";
  ASSERT_TRUE(store_->inbox_update_status(dead).has_value());
  EXPECT_TRUE(claim_all(*store_, "fw").empty());

  AuditEntry audit;
  audit.actor = "operator";
  audit.action = "inbox.replay";
  audit.target_type = "inbox_event";
  audit.target_id = id;
  audit.reason = "app fixed";
  clock_.advance(5);
  auto r = store_->inbox_replay_dead(id, audit);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->status, InboxStatus::kReceived);
  EXPECT_EQ(r->attempts, 0);
  EXPECT_FALSE(r->last_error.has_value());
  EXPECT_EQ(r->next_attempt_at, clock_.now_ms());
  auto history = store_->inbox_history(id).value();
  ASSERT_EQ(history.size(), 3u);  // received, dead, replayed
  EXPECT_EQ(history[2].from, InboxStatus::kDead);
  EXPECT_EQ(history[2].to, InboxStatus::kReceived);
  EXPECT_EQ(history[2].note, "replayed: app fixed");
  AuditFilter filter;
  filter.target_id = id;
  auto log = store_->list_audit(filter, PageRequest{}).value().data;
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].action, "inbox.replay");
  EXPECT_EQ(claim_all(*store_, "fw").size(), 1u);  // forwarded again

  // Only dead events: it is processing now.
  EXPECT_EQ(store_->inbox_replay_dead(id, audit).error().code, ErrorCode::kConflict);
  EXPECT_EQ(store_->inbox_replay_dead("inb_nope", audit).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store_->list_audit(filter, PageRequest{}).value().data.size(), 1u);
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Store, InboxRoundTest, ::testing::ValuesIn(all_factories()), factory_name);

}  // namespace hookd::store::testing
