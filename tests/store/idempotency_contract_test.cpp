// Contract: the idempotency-key state machine (begin / finish / unknown / release / expiry).
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using Outcome = IdempotencyBegin::Outcome;
constexpr std::int64_t kIdemDay = 86'400'000;

TEST_P(StoreContract, IdempotencyFirstCallerOwnsTheKey) {
  auto first = store_->idem_begin("t1|create", "key-1", "fp-a", kIdemDay);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->outcome, Outcome::kStarted);
  EXPECT_EQ(first->record.state, IdempotencyState::kInFlight);
  EXPECT_EQ(first->record.expires_at, clock_.now_ms() + kIdemDay);
  EXPECT_EQ(store_->idem_begin("t1|create", "key-1", "fp-a", kIdemDay)->outcome,
            Outcome::kInFlight);
  EXPECT_EQ(store_->idem_begin("t1|create", "key-1", "fp-b", kIdemDay)->outcome,
            Outcome::kMismatch);
  // Another scope (tenant/route) is another key.
  EXPECT_EQ(store_->idem_begin("t2|create", "key-1", "fp-b", kIdemDay)->outcome, Outcome::kStarted);
}

TEST_P(StoreContract, IdempotencyCompletedKeyReplaysStoredResponse) {
  store_->idem_begin("s", "k", "fp", kIdemDay);
  ASSERT_TRUE(store_->idem_finish("s", "k", 201, {{"location", "/c/1"}}, R"({"id":1})"));
  auto again = store_->idem_begin("s", "k", "fp", kIdemDay);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->outcome, Outcome::kReplay);
  EXPECT_EQ(again->record.response_status, 201);
  EXPECT_EQ(again->record.response_headers.at("location"), "/c/1");
  EXPECT_EQ(again->record.response_body, R"({"id":1})");
  EXPECT_EQ(store_->idem_begin("s", "k", "other", kIdemDay)->outcome, Outcome::kMismatch);
  // Finishing twice is a state error.
  EXPECT_EQ(store_->idem_finish("s", "k", 200, {}, "").error().code, ErrorCode::kConflict);
}

TEST_P(StoreContract, IdempotencyUnknownOutcomeBlocksUntilReleased) {
  store_->idem_begin("s", "k", "fp", kIdemDay);
  ASSERT_TRUE(store_->idem_mark_unknown("s", "k").has_value());
  EXPECT_EQ(store_->idem_begin("s", "k", "fp", kIdemDay)->outcome, Outcome::kUnknown);
  EXPECT_EQ(store_->idem_get("s", "k")->state, IdempotencyState::kUnknown);
  ASSERT_TRUE(store_->idem_release("s", "k").has_value());
  EXPECT_EQ(store_->idem_begin("s", "k", "fp", kIdemDay)->outcome, Outcome::kStarted);
}

TEST_P(StoreContract, IdempotencyKeysExpire) {
  store_->idem_begin("s", "old", "fp", 1000);
  store_->idem_begin("s", "young", "fp", kIdemDay);
  clock_.advance(1000);
  // An expired key starts afresh, even with another fingerprint.
  EXPECT_EQ(store_->idem_begin("s", "old", "fp2", 1000)->outcome, Outcome::kStarted);
  ASSERT_TRUE(store_->idem_finish("s", "old", 202, {}, "{}"));  // only completed keys are purged
  clock_.advance(1000);
  PurgeRequest purge;  // retention's purge of expired keys (store/retention.hpp)
  purge.kind = RetentionKind::kIdempotencyKeys;
  purge.settled_before = clock_.now_ms();
  EXPECT_EQ(store_->purge_batch(purge).value().deleted, 1);
  EXPECT_EQ(store_->idem_get("s", "old").error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(store_->idem_get("s", "young").has_value());
}

}  // namespace
}  // namespace hookd::store::testing
