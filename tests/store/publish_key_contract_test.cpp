// Contract: an Idempotency-Key folded into publish_batch (the API's keyed publishes). The
// key, its stored response and the message commit together; a known key settles its item
// without publishing (A12).
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using Kind = PublishOutcome::Kind;
using Outcome = IdempotencyBegin::Outcome;
constexpr std::int64_t kPublishDay = 86'400'000;

// Renders "<kind>:<message id>" so that a test can see which outcome was kept.
StoredResponse render(const PublishOutcome& o) {
  StoredResponse r;
  r.status = o.kind == Kind::kCreated ? 202 : o.kind == Kind::kDuplicate ? 409 : 404;
  r.headers["Content-Type"] = "application/json";
  r.body = std::to_string(static_cast<int>(o.kind)) + ":" + o.message.id;
  return r;
}

NewMessage keyed(const std::string& app_id, const std::string& key, const std::string& fp) {
  NewMessage m;
  m.app_id = app_id;
  m.event_type = "e";
  m.payload = "{}";
  m.key = PublishKey{"api|alice", key, fp, kPublishDay, render};
  return m;
}

TEST_P(StoreContract, A12_KeyedPublishStoresTheResponseWithTheMessage) {
  auto app = make_app();
  make_endpoint(app.id);
  auto r = store_->publish_batch({keyed(app.id, "k1", "fp")});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  const auto& o = (*r)[0];
  EXPECT_EQ(o.kind, Kind::kCreated);
  ASSERT_TRUE(o.key.has_value());
  EXPECT_EQ(o.key->outcome, Outcome::kStarted);
  EXPECT_EQ(o.key->record.state, IdempotencyState::kCompleted);
  EXPECT_EQ(o.key->record.response_status, 202);
  EXPECT_EQ(o.key->record.response_body, "0:" + o.message.id);
  EXPECT_EQ(o.key->record.expires_at, clock_.now_ms() + kPublishDay);
  auto stored = store_->idem_get("api|alice", "k1");
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->response_body, "0:" + o.message.id);
  EXPECT_EQ(stored->response_headers.at("Content-Type"), "application/json");
  // An unkeyed item carries no key outcome.
  auto plain = store_->publish_batch({NewMessage{app.id, "e", {}, {}, "{}", {}, {}, {}, {}}});
  EXPECT_FALSE((*plain)[0].key.has_value());
}

TEST_P(StoreContract, A12_KnownKeySettlesTheItemWithoutPublishing) {
  auto app = make_app();
  make_endpoint(app.id);
  auto first = store_->publish_batch({keyed(app.id, "k", "fp")});
  ASSERT_TRUE(first.has_value());
  auto again = store_->publish_batch(
      {keyed(app.id, "k", "fp"), keyed(app.id, "k", "other"), keyed(app.id, "k2", "fp")});
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_EQ((*again)[0].kind, Kind::kKeySeen);
  EXPECT_EQ((*again)[0].key->outcome, Outcome::kReplay);
  EXPECT_EQ((*again)[0].key->record.response_body, "0:" + (*first)[0].message.id);
  EXPECT_EQ((*again)[1].kind, Kind::kKeySeen);
  EXPECT_EQ((*again)[1].key->outcome, Outcome::kMismatch);
  EXPECT_EQ((*again)[2].kind, Kind::kCreated);
  EXPECT_EQ(store_->list_messages(app.id, {}, {})->data.size(), 2u);
  EXPECT_EQ(store_->count_deliveries(DeliveryStatus::kPending).value(), 2);
  // A key begun by the generic path and not finished is in flight; one marked unknown too.
  ASSERT_TRUE(store_->idem_begin("api|alice", "held", "fp", kPublishDay).has_value());
  ASSERT_TRUE(store_->idem_begin("api|alice", "lost", "fp", kPublishDay).has_value());
  ASSERT_TRUE(store_->idem_mark_unknown("api|alice", "lost").has_value());
  auto held = store_->publish_batch({keyed(app.id, "held", "fp"), keyed(app.id, "lost", "fp")});
  EXPECT_EQ((*held)[0].key->outcome, Outcome::kInFlight);
  EXPECT_EQ((*held)[1].key->outcome, Outcome::kUnknown);
  EXPECT_EQ(store_->list_messages(app.id, {}, {})->data.size(), 2u);
}

TEST_P(StoreContract, A12_KeyRepeatedInOneBatchPublishesOnce) {
  auto app = make_app();
  auto r = store_->publish_batch({keyed(app.id, "b", "fp"), keyed(app.id, "a", "fp"),
                                  keyed(app.id, "b", "fp"), keyed(app.id, "b", "fp2")});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ((*r)[0].kind, Kind::kCreated);
  EXPECT_EQ((*r)[1].kind, Kind::kCreated);
  EXPECT_EQ((*r)[2].kind, Kind::kKeySeen);
  EXPECT_EQ((*r)[2].key->outcome, Outcome::kReplay);
  EXPECT_EQ((*r)[2].key->record.response_body, "0:" + (*r)[0].message.id);
  EXPECT_EQ((*r)[3].key->outcome, Outcome::kMismatch);
  EXPECT_EQ(store_->list_messages(app.id, {}, {})->data.size(), 2u);
}

TEST_P(StoreContract, A12_KeyKeepsRejectionsAndDuplicatesToo) {
  auto app = make_app();
  publish(app.id, "e", [](NewMessage& m) { m.event_id = "evt"; });
  auto dup = keyed(app.id, "dup", "fp");
  dup.event_id = "evt";
  auto r = store_->publish_batch({dup, keyed("app_missing", "missing", "fp")});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ((*r)[0].kind, Kind::kDuplicate);
  EXPECT_EQ((*r)[0].key->record.response_status, 409);
  EXPECT_EQ((*r)[1].kind, Kind::kRejected);
  EXPECT_EQ((*r)[1].key->record.response_status, 404);
  EXPECT_EQ(store_->idem_get("api|alice", "missing")->state, IdempotencyState::kCompleted);
}

TEST_P(StoreContract, A12_ExpiredKeyPublishesAfresh) {
  auto app = make_app();
  NewMessage m = keyed(app.id, "k", "fp");
  m.key->ttl_ms = 1000;
  ASSERT_TRUE(store_->publish_batch({m}).has_value());
  clock_.advance(1000);
  m.key->fingerprint = "fp-new";
  auto r = store_->publish_batch({m});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ((*r)[0].kind, Kind::kCreated);
  EXPECT_EQ(store_->idem_get("api|alice", "k")->fingerprint, "fp-new");
  EXPECT_EQ(store_->list_messages(app.id, {}, {})->data.size(), 2u);
}

}  // namespace
}  // namespace hookd::store::testing
