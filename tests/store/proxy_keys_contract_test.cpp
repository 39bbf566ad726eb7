// Contract: the idempotency gateway's keys (ProxyKeyStore, docs/proxy.md) on every engine.
// A claim takes a new key (or one whose answer expired) and reports any other as it is, turning
// a claim whose lease ran out into `unknown`; an outcome applies only for the key's owner;
// releasing deletes; a person resolves unknown keys only, audited; concurrent claims of one key
// give it to exactly one caller.
#include <nlohmann/json.hpp>

#include <atomic>
#include <barrier>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

using To = ProxyKeyOutcome::To;
constexpr std::int64_t kProxyLease = 10'000;
constexpr std::int64_t kTtl = 86'400'000;
const std::string kProxyOwnerA = "node-a/proxy";
const std::string kProxyOwnerB = "node-b/proxy";

ProxyClaim claim_of(const std::string& key, const std::string& owner = kProxyOwnerA,
                    const std::string& fingerprint = "fp-1", const std::string& proxy = "orders",
                    const std::string& tenant = "") {
  ProxyClaim c;
  c.proxy = proxy;
  c.tenant = tenant;
  c.key = key;
  c.fingerprint = fingerprint;
  c.owner = owner;
  c.lease_ms = kProxyLease;
  return c;
}

ProxyKeyOutcome outcome_of(const ProxyKey& k, To to, const std::string& owner = "") {
  ProxyKeyOutcome o;
  o.id = k.id;
  o.owner = owner.empty() ? k.owner : owner;
  o.to = to;
  if (to == To::kCompleted || to == To::kNotReplayable) {
    o.status = 201;
    o.headers = {{"content-type", "application/json"}};
    o.body = R"({"id":"ch_1"})";
    o.body_size = static_cast<std::int64_t>(o.body.size());
    o.body_sha256 = std::string(64, 'a');
    o.ttl_ms = kTtl;
  }
  return o;
}

ProxyResolution resolution_of(ProxyResolution::Outcome outcome) {
  ProxyResolution r;
  r.outcome = outcome;
  r.resolved_by = "ops@example";
  r.reason = "checked upstream";
  if (outcome == ProxyResolution::Outcome::kCompleted) {
    r.status = 200;
    r.headers = {{"x-a", "1"}, {"x-a", "2"}};
    r.body = std::string("ok\0!", 4);
    r.ttl_ms = kTtl;
  }
  return r;
}

AuditEntry resolve_entry() {
  AuditEntry a = audit_entry("idempotency.resolve", "", "customer confirmed");
  a.target_type = "";
  return a;
}

class ProxyKeyTest : public StoreContract {
 protected:
  ProxyWriteBatchResult batch(std::vector<ProxyKeyOutcome> outcomes,
                              std::vector<ProxyClaim> claims) {
    ProxyWriteBatch b;
    b.outcomes = std::move(outcomes);
    b.claims = std::move(claims);
    auto r = store_->proxy_write_batch(b);
    EXPECT_TRUE(r.has_value()) << r.error().message;
    return r.value_or(ProxyWriteBatchResult{});
  }

  ProxyClaimResult claim(const ProxyClaim& c) {
    auto r = batch({}, {c});
    if (r.claims.size() != 1 || !r.claims[0]) {
      ADD_FAILURE() << "claim of " << c.key << " failed";
      return {};
    }
    return *r.claims[0];
  }

  Result<ProxyKey> apply(const ProxyKeyOutcome& o) {
    auto r = batch({o}, {});
    if (r.outcomes.size() != 1) return fail(ErrorCode::kInternal, "no outcome result");
    return r.outcomes[0];
  }

  // A key made `unknown` by its lease running out (the sweep).
  ProxyKey unknown_key(const std::string& key, const std::string& owner = kProxyOwnerA,
                       const std::string& proxy = "orders") {
    ProxyClaim c = claim_of(key, owner, "fp-1", proxy);
    c.lease_ms = 1;
    ProxyKey k = claim(c).key;
    clock_.advance(1);
    EXPECT_GE(store_->proxy_expire_leases().value_or(0), 1);
    return store_->proxy_get(k.id).value_or(ProxyKey{});
  }

  ProxyKey get(const std::string& id) {
    auto r = store_->proxy_get(id);
    EXPECT_TRUE(r.has_value()) << id << ": " << (r ? "" : r.error().message);
    return r.value_or(ProxyKey{});
  }

  std::vector<AuditEntry> audit_of(const std::string& id) {
    PageRequest all;
    all.limit = PageRequest::kMaxLimit;
    auto log = store_->list_audit(audit_by_target(id), all);
    EXPECT_TRUE(log.has_value());
    return log ? log->data : std::vector<AuditEntry>{};
  }
};

void expect_same_row(const ProxyKey& a, const ProxyKey& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.owner, b.owner);
  EXPECT_EQ(a.lease_until, b.lease_until);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.headers, b.headers);
  EXPECT_EQ(a.body, b.body);
  EXPECT_EQ(a.body_size, b.body_size);
  EXPECT_EQ(a.body_sha256, b.body_sha256);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.updated_at, b.updated_at);
  EXPECT_EQ(a.expires_at, b.expires_at);
  EXPECT_EQ(a.resolved_by, b.resolved_by);
  EXPECT_EQ(a.reason, b.reason);
}

// ---- claims ----

TEST_P(ProxyKeyTest, ANewKeyIsClaimedByTheCaller) {
  const std::int64_t now = clock_.now_ms();
  auto r = claim(claim_of("key-1", kProxyOwnerA, "fp-1", "orders", "t-hash"));
  ASSERT_TRUE(r.claimed);
  const ProxyKey& k = r.key;
  EXPECT_TRUE(k.id.starts_with("idk_")) << k.id;
  EXPECT_EQ(k.proxy, "orders");
  EXPECT_EQ(k.tenant, "t-hash");
  EXPECT_EQ(k.key, "key-1");
  EXPECT_EQ(k.fingerprint, "fp-1");
  EXPECT_EQ(k.state, ProxyKeyState::kClaimed);
  EXPECT_EQ(k.owner, kProxyOwnerA);
  EXPECT_EQ(k.lease_until, now + kProxyLease);
  EXPECT_EQ(k.status, std::nullopt);
  EXPECT_TRUE(k.headers.empty());
  EXPECT_TRUE(k.body.empty());
  EXPECT_EQ(k.created_at, now);
  EXPECT_EQ(k.updated_at, now);
  EXPECT_EQ(k.expires_at, 0);
  expect_same_row(get(k.id), k);
}

TEST_P(ProxyKeyTest, AClaimOfATakenKeyGetsTheRowAsItIs) {
  ProxyKey first = claim(claim_of("key-1")).key;
  clock_.advance(kProxyLease - 1);  // the lease is still live
  auto again = claim(claim_of("key-1", kProxyOwnerB, "fp-other"));
  EXPECT_FALSE(again.claimed);
  expect_same_row(again.key, first);  // owner, fingerprint, lease: the first claim's
  // Another proxy, tenant or key is another key.
  EXPECT_TRUE(claim(claim_of("key-1", kProxyOwnerB, "fp-1", "billing")).claimed);
  EXPECT_TRUE(claim(claim_of("key-1", kProxyOwnerB, "fp-1", "orders", "t2")).claimed);
  EXPECT_TRUE(claim(claim_of("key-2", kProxyOwnerB)).claimed);
  EXPECT_FALSE(claim(claim_of("key-1", kProxyOwnerA)).claimed) << "not even for the same owner";
}

TEST_P(ProxyKeyTest, AClaimWhoseLeaseRanOutBecomesUnknownOnTheNextClaim) {
  ProxyKey first = claim(claim_of("key-1")).key;
  clock_.advance(kProxyLease);
  const std::int64_t expired_at = clock_.now_ms();
  auto next = claim(claim_of("key-1", kProxyOwnerB));
  EXPECT_FALSE(next.claimed) << "its owner may have sent before it died";
  EXPECT_EQ(next.key.id, first.id);
  EXPECT_EQ(next.key.state, ProxyKeyState::kUnknown);
  EXPECT_EQ(next.key.owner, kProxyOwnerA) << "the owner is kept";
  EXPECT_EQ(next.key.updated_at, expired_at);
  EXPECT_EQ(get(first.id).state, ProxyKeyState::kUnknown) << "committed with the claim";

  clock_.advance(5'000);
  auto later = claim(claim_of("key-1", kProxyOwnerB));
  EXPECT_FALSE(later.claimed);
  EXPECT_EQ(later.key.state, ProxyKeyState::kUnknown);
  EXPECT_EQ(later.key.updated_at, expired_at) << "unknown since the lease ran out";
  clock_.advance(10 * kTtl);
  EXPECT_FALSE(claim(claim_of("key-1", kProxyOwnerB)).claimed) << "unknown never expires";
}

TEST_P(ProxyKeyTest, TheSweepTurnsExpiredLeasesUnknown) {
  ProxyClaim short_lease = claim_of("short");
  short_lease.lease_ms = 1'000;
  ProxyKey s = claim(short_lease).key;
  ProxyKey l = claim(claim_of("long")).key;
  ProxyKey done = claim(claim_of("done")).key;
  ASSERT_TRUE(apply(outcome_of(done, To::kCompleted)).has_value());

  clock_.advance(999);
  EXPECT_EQ(store_->proxy_expire_leases().value(), 0);
  clock_.advance(1);
  EXPECT_EQ(store_->proxy_expire_leases().value(), 1);
  EXPECT_EQ(get(s.id).state, ProxyKeyState::kUnknown);
  EXPECT_EQ(get(s.id).updated_at, clock_.now_ms());
  EXPECT_EQ(get(s.id).owner, kProxyOwnerA);
  EXPECT_EQ(get(l.id).state, ProxyKeyState::kClaimed);
  EXPECT_EQ(get(done.id).state, ProxyKeyState::kCompleted);
  EXPECT_EQ(store_->proxy_expire_leases().value(), 0) << "an unknown key is not swept again";
}

TEST_P(ProxyKeyTest, OrphaningAnOwnerTouchesOnlyItsClaimedKeys) {
  ProxyKey a1 = claim(claim_of("a1", kProxyOwnerA)).key;
  ProxyKey a2 = claim(claim_of("a2", kProxyOwnerA, "fp-1", "billing")).key;
  ProxyKey a_done = claim(claim_of("a-done", kProxyOwnerA)).key;
  ASSERT_TRUE(apply(outcome_of(a_done, To::kCompleted)).has_value());
  ProxyKey b1 = claim(claim_of("b1", kProxyOwnerB)).key;

  clock_.advance(10);
  EXPECT_EQ(store_->proxy_orphan_owner(kProxyOwnerA).value(), 2);
  EXPECT_EQ(get(a1.id).state, ProxyKeyState::kUnknown);
  EXPECT_EQ(get(a1.id).updated_at, clock_.now_ms());
  EXPECT_EQ(get(a2.id).state, ProxyKeyState::kUnknown);
  EXPECT_EQ(get(a_done.id).state, ProxyKeyState::kCompleted);
  expect_same_row(get(b1.id), b1);
  EXPECT_EQ(store_->proxy_orphan_owner(kProxyOwnerA).value(), 0);
  EXPECT_EQ(store_->proxy_orphan_owner("node-c/proxy").value(), 0);
}

// ---- outcomes ----

TEST_P(ProxyKeyTest, ACompletedAnswerIsStoredByteExactAndReplayed) {
  ProxyKey k = claim(claim_of("key-1")).key;
  clock_.advance(250);
  ProxyKeyOutcome o = outcome_of(k, To::kCompleted);
  o.headers = {{"Set-Cookie", "a=1"},   {"content-type", "application/octet-stream"},
               {"Set-Cookie", "b=2"},   {"x-empty", ""},
               {"X-Latin1", "caf\xe9"}, {"x-json", R"(["not",{"a":"pair"}])"}};
  o.body = std::string("\0head\0\xff\xfe tail\n\0", 15);
  o.body_size = static_cast<std::int64_t>(o.body.size());
  auto done = apply(o);
  ASSERT_TRUE(done.has_value()) << done.error().message;
  const std::int64_t now = clock_.now_ms();
  for (const ProxyKey& row : {*done, get(k.id), claim(claim_of("key-1", kProxyOwnerB)).key}) {
    EXPECT_EQ(row.id, k.id);
    EXPECT_EQ(row.state, ProxyKeyState::kCompleted);
    EXPECT_EQ(row.status, 201);
    EXPECT_EQ(row.headers, o.headers) << "order and duplicates kept";
    EXPECT_EQ(row.body, o.body);
    EXPECT_EQ(row.body.size(), 15u);
    EXPECT_EQ(row.body_size, 15);
    EXPECT_EQ(row.body_sha256, o.body_sha256);
    EXPECT_EQ(row.expires_at, now + kTtl);
    EXPECT_EQ(row.updated_at, now);
    EXPECT_EQ(row.created_at, k.created_at);
    EXPECT_EQ(row.owner, kProxyOwnerA);
    EXPECT_EQ(row.fingerprint, "fp-1");
  }
  EXPECT_FALSE(claim(claim_of("key-1", kProxyOwnerB)).claimed) << "a live answer is replayed";
  EXPECT_EQ(apply(outcome_of(k, To::kCompleted)).error().code, ErrorCode::kConflict)
      << "an answer is recorded once";
  EXPECT_EQ(apply(outcome_of(k, To::kReleased)).error().code, ErrorCode::kConflict);
  EXPECT_EQ(get(k.id).state, ProxyKeyState::kCompleted);
}

TEST_P(ProxyKeyTest, ANotReplayableAnswerKeepsSizeAndHashButNoBody) {
  ProxyKey k = claim(claim_of("big")).key;
  ProxyKeyOutcome o = outcome_of(k, To::kNotReplayable);
  o.body = "must not be kept";
  o.body_size = 50'000'000;
  auto done = apply(o);
  ASSERT_TRUE(done.has_value()) << done.error().message;
  ProxyKey row = get(k.id);
  EXPECT_EQ(row.state, ProxyKeyState::kNotReplayable);
  EXPECT_EQ(row.status, 201);
  EXPECT_EQ(row.headers, o.headers);
  EXPECT_TRUE(row.body.empty());
  EXPECT_EQ(row.body_size, 50'000'000);
  EXPECT_EQ(row.body_sha256, o.body_sha256);
  EXPECT_EQ(row.expires_at, clock_.now_ms() + kTtl);
  EXPECT_FALSE(claim(claim_of("big", kProxyOwnerB)).claimed);
}

TEST_P(ProxyKeyTest, AnExpiredAnswerCanBeClaimedAnew) {
  for (To to : {To::kCompleted, To::kNotReplayable}) {
    const std::string key = to == To::kCompleted ? "done" : "big";
    ProxyKey k = claim(claim_of(key)).key;
    ProxyKeyOutcome o = outcome_of(k, to);
    o.ttl_ms = 1'000;
    ASSERT_TRUE(apply(o).has_value());
    clock_.advance(999);
    EXPECT_FALSE(claim(claim_of(key, kProxyOwnerB, "fp-2")).claimed) << "still live";
    clock_.advance(1);
    auto fresh = claim(claim_of(key, kProxyOwnerB, "fp-2"));
    ASSERT_TRUE(fresh.claimed) << key;
    EXPECT_NE(fresh.key.id, k.id) << "a new operation, a new id";
    EXPECT_EQ(fresh.key.state, ProxyKeyState::kClaimed);
    EXPECT_EQ(fresh.key.owner, kProxyOwnerB);
    EXPECT_EQ(fresh.key.fingerprint, "fp-2");
    EXPECT_EQ(fresh.key.lease_until, clock_.now_ms() + kProxyLease);
    EXPECT_EQ(fresh.key.status, std::nullopt);
    EXPECT_TRUE(fresh.key.headers.empty());
    EXPECT_TRUE(fresh.key.body.empty());
    EXPECT_EQ(fresh.key.body_size, 0);
    EXPECT_EQ(fresh.key.body_sha256, "");
    EXPECT_EQ(fresh.key.expires_at, 0);
    EXPECT_EQ(fresh.key.created_at, clock_.now_ms());
    expect_same_row(get(fresh.key.id), fresh.key);
    EXPECT_EQ(store_->proxy_get(k.id).error().code, ErrorCode::kNotFound);
    // The old operation's owner cannot touch the new one through the old id.
    EXPECT_FALSE(apply(outcome_of(k, To::kReleased)).has_value());
    EXPECT_EQ(get(fresh.key.id).state, ProxyKeyState::kClaimed);
  }
}

TEST_P(ProxyKeyTest, AnOutcomeOfAnotherOwnerIsAConflictAndChangesNothing) {
  ProxyKey k = claim(claim_of("key-1")).key;
  clock_.advance(10);
  for (To to : {To::kCompleted, To::kNotReplayable, To::kUnknown, To::kReleased}) {
    auto r = apply(outcome_of(k, to, kProxyOwnerB));
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ErrorCode::kConflict);
    expect_same_row(get(k.id), k);
  }
  ProxyKeyOutcome missing = outcome_of(k, To::kCompleted);
  missing.id = "idk_missing";
  EXPECT_EQ(apply(missing).error().code, ErrorCode::kNotFound);
}

TEST_P(ProxyKeyTest, AnOutcomeOnAnUnknownKeyOfTheSameOwnerIsApplied) {
  ProxyKey late = unknown_key("late");
  auto done = apply(outcome_of(late, To::kCompleted));
  ASSERT_TRUE(done.has_value()) << "the answer arrived after the lease: it is the truth";
  EXPECT_EQ(get(late.id).state, ProxyKeyState::kCompleted);

  ProxyKey again = unknown_key("again");
  clock_.advance(500);
  ASSERT_TRUE(apply(outcome_of(again, To::kUnknown)).has_value());
  EXPECT_EQ(get(again.id).state, ProxyKeyState::kUnknown);
  EXPECT_EQ(get(again.id).updated_at, again.updated_at) << "unknown since the first time";

  ProxyKey gone = unknown_key("gone");
  auto released = apply(outcome_of(gone, To::kReleased));
  ASSERT_TRUE(released.has_value());
  EXPECT_EQ(released->state, ProxyKeyState::kUnknown) << "the row as it was";
  EXPECT_EQ(store_->proxy_get(gone.id).error().code, ErrorCode::kNotFound);

  ProxyKey theirs = unknown_key("theirs", kProxyOwnerB);
  EXPECT_EQ(apply(outcome_of(theirs, To::kCompleted, kProxyOwnerA)).error().code,
            ErrorCode::kConflict);
  expect_same_row(get(theirs.id), theirs);
}

TEST_P(ProxyKeyTest, AnUnknownOutcomeMarksTheClaimUnknown) {
  ProxyKey k = claim(claim_of("key-1")).key;
  clock_.advance(42);
  auto r = apply(outcome_of(k, To::kUnknown));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->state, ProxyKeyState::kUnknown);
  EXPECT_EQ(r->updated_at, clock_.now_ms());
  EXPECT_EQ(r->owner, kProxyOwnerA);
  EXPECT_EQ(r->expires_at, 0);
  EXPECT_EQ(r->status, std::nullopt);
  auto next = claim(claim_of("key-1", kProxyOwnerB));
  EXPECT_FALSE(next.claimed);
  EXPECT_EQ(next.key.state, ProxyKeyState::kUnknown);
}

TEST_P(ProxyKeyTest, AReleasedKeyIsDeletedAndCanBeClaimedAgain) {
  ProxyKey k = claim(claim_of("key-1")).key;
  auto released = apply(outcome_of(k, To::kReleased));
  ASSERT_TRUE(released.has_value()) << released.error().message;
  expect_same_row(*released, k);
  EXPECT_EQ(store_->proxy_get(k.id).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(apply(outcome_of(k, To::kReleased)).error().code, ErrorCode::kNotFound);
  auto again = claim(claim_of("key-1", kProxyOwnerB, "fp-2"));
  ASSERT_TRUE(again.claimed);
  EXPECT_NE(again.key.id, k.id);
  EXPECT_EQ(again.key.owner, kProxyOwnerB);
}

TEST_P(ProxyKeyTest, ABatchReleasesFirstThenClaims) {
  ProxyKey k = claim(claim_of("key-1")).key;
  auto r = batch({outcome_of(k, To::kReleased)}, {claim_of("key-1", kProxyOwnerB, "fp-2")});
  ASSERT_EQ(r.outcomes.size(), 1u);
  ASSERT_EQ(r.claims.size(), 1u);
  ASSERT_TRUE(r.outcomes[0].has_value()) << r.outcomes[0].error().message;
  ASSERT_TRUE(r.claims[0].has_value());
  EXPECT_TRUE(r.claims[0]->claimed) << "the key released in the batch is claimed in it";
  EXPECT_EQ(r.claims[0]->key.owner, kProxyOwnerB);
  EXPECT_EQ(get(r.claims[0]->key.id).fingerprint, "fp-2");
}

TEST_P(ProxyKeyTest, OneItemsConflictDoesNotFailTheOthers) {
  ProxyKey k1 = claim(claim_of("k1")).key;
  ProxyKey k2 = claim(claim_of("k2")).key;
  ProxyKey k3 = claim(claim_of("k3")).key;
  ProxyKeyOutcome missing = outcome_of(k1, To::kReleased);
  missing.id = "idk_missing";
  auto r = batch({outcome_of(k1, To::kCompleted), outcome_of(k2, To::kCompleted, kProxyOwnerB),
                  missing, outcome_of(k3, To::kUnknown)},
                 {claim_of("k4"), claim_of("k2", kProxyOwnerB), claim_of("k4", kProxyOwnerB)});
  ASSERT_EQ(r.outcomes.size(), 4u);
  ASSERT_EQ(r.claims.size(), 3u);
  EXPECT_TRUE(r.outcomes[0].has_value());
  ASSERT_FALSE(r.outcomes[1].has_value());
  EXPECT_EQ(r.outcomes[1].error().code, ErrorCode::kConflict);
  ASSERT_FALSE(r.outcomes[2].has_value());
  EXPECT_EQ(r.outcomes[2].error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(r.outcomes[3].has_value());
  ASSERT_TRUE(r.claims[0].has_value() && r.claims[1].has_value() && r.claims[2].has_value());
  EXPECT_TRUE(r.claims[0]->claimed);
  EXPECT_FALSE(r.claims[1]->claimed);
  EXPECT_FALSE(r.claims[2]->claimed) << "a key claimed earlier in the same batch";
  EXPECT_EQ(r.claims[2]->key.id, r.claims[0]->key.id);

  EXPECT_EQ(get(k1.id).state, ProxyKeyState::kCompleted);
  expect_same_row(get(k2.id), k2);
  EXPECT_EQ(get(k3.id).state, ProxyKeyState::kUnknown);
  EXPECT_EQ(get(r.claims[0]->key.id).owner, kProxyOwnerA);
}

TEST_P(ProxyKeyTest, AnEmptyBatchIsFine) {
  auto r = batch({}, {});
  EXPECT_TRUE(r.outcomes.empty());
  EXPECT_TRUE(r.claims.empty());
}

// ---- resolution ----

TEST_P(ProxyKeyTest, ResolvingCompletedStoresTheAnswerWithItsAuditEntry) {
  ProxyKey k = unknown_key("key-1");
  clock_.advance(1'000);
  const ProxyResolution res = resolution_of(ProxyResolution::Outcome::kCompleted);
  auto r = store_->proxy_resolve(k.id, res, resolve_entry());
  ASSERT_TRUE(r.has_value()) << r.error().message;
  const std::int64_t now = clock_.now_ms();
  for (const ProxyKey& row : {*r, get(k.id)}) {
    EXPECT_EQ(row.id, k.id);
    EXPECT_EQ(row.state, ProxyKeyState::kCompleted);
    EXPECT_EQ(row.status, 200);
    EXPECT_EQ(row.headers, res.headers);
    EXPECT_EQ(row.body, res.body);
    EXPECT_EQ(row.body_size, 4);
    EXPECT_EQ(row.expires_at, now + kTtl);
    EXPECT_EQ(row.updated_at, now);
    EXPECT_EQ(row.resolved_by, "ops@example");
    EXPECT_EQ(row.reason, "checked upstream");
  }
  auto replay = claim(claim_of("key-1", kProxyOwnerB));
  EXPECT_FALSE(replay.claimed);
  EXPECT_EQ(replay.key.body, res.body) << "replayable from now on";

  auto log = audit_of(k.id);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].actor, "ops@example");
  EXPECT_EQ(log[0].action, "idempotency.resolve");
  EXPECT_EQ(log[0].reason, "customer confirmed");
  EXPECT_EQ(log[0].target_type, "proxy_key");
  EXPECT_EQ(log[0].at, now);
  auto before = nlohmann::json::parse(log[0].before.value_or(""), nullptr, false);
  auto after = nlohmann::json::parse(log[0].after.value_or(""), nullptr, false);
  ASSERT_TRUE(before.is_object()) << log[0].before.value_or("");
  ASSERT_TRUE(after.is_object()) << log[0].after.value_or("");
  EXPECT_EQ(before["state"], "unknown");
  EXPECT_EQ(before["owner"], kProxyOwnerA);
  EXPECT_EQ(before["key"], "key-1");
  EXPECT_EQ(before["proxy"], "orders");
  EXPECT_TRUE(before["status"].is_null());
  EXPECT_EQ(after["state"], "completed");
  EXPECT_EQ(after["status"], 200);
  EXPECT_EQ(after["resolved_by"], "ops@example");
  EXPECT_FALSE(after.contains("body")) << "no body in the audit log";
}

TEST_P(ProxyKeyTest, ResolvingNotExecutedDeletesTheKeyWithItsAuditEntry) {
  ProxyKey k = unknown_key("key-1");
  auto r = store_->proxy_resolve(k.id, resolution_of(ProxyResolution::Outcome::kNotExecuted),
                                 resolve_entry());
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->id, k.id);
  EXPECT_EQ(r->state, ProxyKeyState::kUnknown) << "the row as it was";
  EXPECT_EQ(r->reason, "checked upstream");
  EXPECT_EQ(store_->proxy_get(k.id).error().code, ErrorCode::kNotFound);
  auto log = audit_of(k.id);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].reason, "customer confirmed");
  EXPECT_EQ(nlohmann::json::parse(log[0].before.value_or(""), nullptr, false)["state"], "unknown");
  auto after = nlohmann::json::parse(log[0].after.value_or(""), nullptr, false);
  EXPECT_EQ(after["deleted"], true) << log[0].after.value_or("");
  EXPECT_TRUE(claim(claim_of("key-1", kProxyOwnerB)).claimed) << "the client may retry";
}

TEST_P(ProxyKeyTest, OnlyUnknownKeysCanBeResolved) {
  ProxyKey claimed = claim(claim_of("claimed")).key;
  ProxyKey done = claim(claim_of("done")).key;
  ASSERT_TRUE(apply(outcome_of(done, To::kCompleted)).has_value());
  done = get(done.id);
  ProxyKey expired_lease = claim(claim_of("expired")).key;
  clock_.advance(kProxyLease);  // lease over, but nobody swept it yet: still `claimed`
  for (const ProxyKey& k : {claimed, done, expired_lease}) {
    for (auto outcome :
         {ProxyResolution::Outcome::kCompleted, ProxyResolution::Outcome::kNotExecuted}) {
      auto r = store_->proxy_resolve(k.id, resolution_of(outcome), resolve_entry());
      ASSERT_FALSE(r.has_value()) << k.key;
      EXPECT_EQ(r.error().code, ErrorCode::kConflict) << k.key;
      expect_same_row(get(k.id), k);
      EXPECT_TRUE(audit_of(k.id).empty()) << "nothing changed, nothing audited";
    }
  }
  EXPECT_EQ(store_
                ->proxy_resolve("idk_missing", resolution_of(ProxyResolution::Outcome::kCompleted),
                                resolve_entry())
                .error()
                .code,
            ErrorCode::kNotFound);
  ProxyKey u = unknown_key("u");
  ASSERT_TRUE(store_->proxy_resolve(u.id, resolution_of(ProxyResolution::Outcome::kCompleted),
                                    resolve_entry()));
  EXPECT_EQ(store_
                ->proxy_resolve(u.id, resolution_of(ProxyResolution::Outcome::kCompleted),
                                resolve_entry())
                .error()
                .code,
            ErrorCode::kConflict)
      << "resolved once";
  EXPECT_EQ(audit_of(u.id).size(), 1u);
}

TEST_P(ProxyKeyTest, AResolutionKeepsTheCallersAuditDocumentsAndNeedsNoEntry) {
  ProxyKey k = unknown_key("key-1");
  AuditEntry a = resolve_entry();
  a.before = R"({"mine":1})";
  a.after = R"({"mine":2})";
  ASSERT_TRUE(store_->proxy_resolve(k.id, resolution_of(ProxyResolution::Outcome::kCompleted), a));
  auto log = audit_of(k.id);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].before, R"({"mine":1})");
  EXPECT_EQ(log[0].after, R"({"mine":2})");

  ProxyKey quiet = unknown_key("quiet");
  ASSERT_TRUE(store_->proxy_resolve(quiet.id, resolution_of(ProxyResolution::Outcome::kNotExecuted),
                                    std::nullopt));
  EXPECT_TRUE(audit_of(quiet.id).empty());
  EXPECT_EQ(store_->proxy_get(quiet.id).error().code, ErrorCode::kNotFound);
}

// ---- lists, gauges, retention ----

TEST_P(ProxyKeyTest, ListsFilterByProxyAndStateAndPage) {
  std::vector<std::string> orders_ids;
  for (int i = 0; i < 5; ++i) {
    orders_ids.push_back(claim(claim_of("o" + std::to_string(i))).key.id);
  }
  ProxyKey u1 = unknown_key("ou1");
  ProxyKey b1 = claim(claim_of("b1", kProxyOwnerA, "fp", "billing")).key;
  ProxyKey bu = unknown_key("bu", kProxyOwnerA, "billing");
  ASSERT_TRUE(apply(outcome_of(get(orders_ids[1]), To::kCompleted)).has_value());
  orders_ids.push_back(u1.id);

  auto list = [&](ProxyKeyFilter f, int limit, bool descending) {
    std::vector<ProxyKey> all;
    PageRequest page;
    page.limit = limit;
    page.descending = descending;
    for (int guard = 0; guard < 20; ++guard) {
      auto r = store_->proxy_list(f, page);
      EXPECT_TRUE(r.has_value());
      if (!r) break;
      EXPECT_LE(r->data.size(), static_cast<std::size_t>(limit));
      all.insert(all.end(), r->data.begin(), r->data.end());
      if (r->done) break;
      page.iterator = r->iterator;
    }
    return all;
  };
  auto ids = [](const std::vector<ProxyKey>& keys) {
    std::vector<std::string> out;
    for (const auto& k : keys) out.push_back(k.id);
    return out;
  };

  ProxyKeyFilter orders;
  orders.proxy = "orders";
  std::vector<std::string> newest_first(orders_ids.rbegin(), orders_ids.rend());
  EXPECT_EQ(ids(list(orders, 2, true)), newest_first);
  EXPECT_EQ(ids(list(orders, 4, false)), orders_ids);

  ProxyKeyFilter unknown;
  unknown.state = ProxyKeyState::kUnknown;
  EXPECT_EQ(ids(list(unknown, 1, true)), (std::vector<std::string>{bu.id, u1.id}));
  ProxyKeyFilter orders_unknown = orders;
  orders_unknown.state = ProxyKeyState::kUnknown;
  EXPECT_EQ(ids(list(orders_unknown, 50, true)), (std::vector<std::string>{u1.id}));
  ProxyKeyFilter completed;
  completed.state = ProxyKeyState::kCompleted;
  auto done = list(completed, 50, true);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].id, orders_ids[1]);
  EXPECT_EQ(done[0].body, R"({"id":"ch_1"})") << "rows come whole";
  ProxyKeyFilter billing_claimed;
  billing_claimed.proxy = "billing";
  billing_claimed.state = ProxyKeyState::kClaimed;
  EXPECT_EQ(ids(list(billing_claimed, 50, true)), (std::vector<std::string>{b1.id}));
  ProxyKeyFilter none;
  none.proxy = "nope";
  EXPECT_TRUE(list(none, 50, true).empty());
  EXPECT_EQ(list(ProxyKeyFilter{}, 3, true).size(), 8u);
}

TEST_P(ProxyKeyTest, UnknownStatsCountPerProxyWithTheOldest) {
  EXPECT_TRUE(store_->proxy_unknown_stats().value().empty());
  claim(claim_of("claimed"));  // not unknown: not counted
  const std::int64_t first = clock_.now_ms() + 1;
  unknown_key("o1");  // unknown at `first`
  clock_.advance(5'000);
  unknown_key("o2");
  ProxyKey b = unknown_key("b1", kProxyOwnerB, "billing");
  ProxyKey resolved = unknown_key("b2", kProxyOwnerB, "billing");
  ASSERT_TRUE(store_->proxy_resolve(
      resolved.id, resolution_of(ProxyResolution::Outcome::kCompleted), std::nullopt));
  auto stats = store_->proxy_unknown_stats();
  ASSERT_TRUE(stats.has_value()) << stats.error().message;
  ASSERT_EQ(stats->size(), 2u);
  std::map<std::string, ProxyUnknownStat> by_proxy;
  for (const auto& s : *stats) by_proxy[s.proxy] = s;
  EXPECT_EQ(by_proxy["orders"].count, 2);
  EXPECT_EQ(by_proxy["orders"].oldest_at, first);
  EXPECT_EQ(by_proxy["billing"].count, 1);
  EXPECT_EQ(by_proxy["billing"].oldest_at, b.updated_at);
}

// The retention purge of expired keys (store/retention.hpp), one batch of up to 100.
int purge_expired_keys(Store& store, RetentionKind kind, Millis now) {
  PurgeRequest r;
  r.kind = kind;
  r.settled_before = now;
  r.limit = 100;
  auto b = store.purge_batch(r);
  EXPECT_TRUE(b.has_value());
  return b ? b->deleted : -1;
}

TEST_P(ProxyKeyTest, PurgeDeletesOnlyExpiredAnswers) {
  auto answered = [&](const std::string& key, To to, std::int64_t ttl) {
    ProxyKey k = claim(claim_of(key)).key;
    ProxyKeyOutcome o = outcome_of(k, to);
    o.ttl_ms = ttl;
    EXPECT_TRUE(apply(o).has_value());
    return k;
  };
  ProxyKey old_done = answered("old-done", To::kCompleted, 1'000);
  ProxyKey old_big = answered("old-big", To::kNotReplayable, 1'000);
  ProxyKey young = answered("young", To::kCompleted, kTtl);
  ProxyKey stale_claim = claim(claim_of("stale-claim")).key;  // lease long over, not swept
  ProxyKey unknown = unknown_key("unknown");                  // the clock moves by 1 ms
  clock_.advance(998);
  EXPECT_EQ(purge_expired_keys(*store_, RetentionKind::kProxyKeys, clock_.now_ms()), 0);
  clock_.advance(10 * kProxyLease);
  EXPECT_EQ(purge_expired_keys(*store_, RetentionKind::kProxyKeys, clock_.now_ms()), 2);
  EXPECT_EQ(store_->proxy_get(old_done.id).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(store_->proxy_get(old_big.id).error().code, ErrorCode::kNotFound);
  EXPECT_EQ(get(young.id).state, ProxyKeyState::kCompleted);
  EXPECT_EQ(get(stale_claim.id).state, ProxyKeyState::kClaimed);
  EXPECT_EQ(get(unknown.id).state, ProxyKeyState::kUnknown);
  clock_.advance(100 * kTtl);
  EXPECT_EQ(purge_expired_keys(*store_, RetentionKind::kProxyKeys, clock_.now_ms()), 1);
  EXPECT_EQ(get(stale_claim.id).state, ProxyKeyState::kClaimed) << "never claimed ones";
  EXPECT_EQ(get(unknown.id).state, ProxyKeyState::kUnknown) << "never unknown ones";
}

// ---- races ----

// Many threads claim the same fresh key at the same moment, over many rounds: each round
// exactly one of them gets it, and all of them see the same row.
TEST_P(ProxyKeyTest, ConcurrentClaimsOfOneKeyGiveItToExactlyOne) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 50;
  for (int round = 0; round < kRounds; ++round) {
    const std::string key = "race-" + std::to_string(round);
    std::barrier start(kThreads);
    std::atomic<int> claimed{0};
    std::atomic<int> failures{0};
    std::vector<std::string> seen(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        ProxyWriteBatch b;
        b.claims = {claim_of(key, "node-" + std::to_string(t) + "/proxy")};
        start.arrive_and_wait();
        auto r = store_->proxy_write_batch(b);
        if (!r || r->claims.size() != 1 || !r->claims[0]) {
          ++failures;
          return;
        }
        if (r->claims[0]->claimed) ++claimed;
        seen[static_cast<std::size_t>(t)] = r->claims[0]->key.id;
      });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(failures.load(), 0) << "round " << round;
    ASSERT_EQ(claimed.load(), 1) << "round " << round;
    EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 1u) << "round " << round;
  }
}

// The same race on a key whose answer just expired: exactly one renews it.
TEST_P(ProxyKeyTest, ConcurrentClaimsOfAnExpiredKeyRenewItOnce) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    const std::string key = "expired-" + std::to_string(round);
    ProxyKey k = claim(claim_of(key)).key;
    ProxyKeyOutcome o = outcome_of(k, To::kCompleted);
    o.ttl_ms = 0;  // expires at once
    ASSERT_TRUE(apply(o).has_value());
    std::barrier start(kThreads);
    std::atomic<int> claimed{0};
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        ProxyWriteBatch b;
        b.claims = {claim_of(key, "node-" + std::to_string(t) + "/proxy")};
        start.arrive_and_wait();
        auto r = store_->proxy_write_batch(b);
        if (!r || r->claims.size() != 1 || !r->claims[0]) {
          ++failures;
          return;
        }
        if (r->claims[0]->claimed) ++claimed;
      });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(failures.load(), 0) << "round " << round;
    ASSERT_EQ(claimed.load(), 1) << "round " << round;
  }
}

INSTANTIATE_TEST_SUITE_P(Store, ProxyKeyTest, ::testing::ValuesIn(all_factories()), factory_name);

TEST(ProxyKeyState, NamesRoundTrip) {
  for (auto s : {ProxyKeyState::kClaimed, ProxyKeyState::kCompleted, ProxyKeyState::kNotReplayable,
                 ProxyKeyState::kUnknown}) {
    EXPECT_EQ(parse_proxy_key_state(to_string(s)), s);
  }
  EXPECT_EQ(to_string(ProxyKeyState::kNotReplayable), "not_replayable");
  EXPECT_EQ(to_string(ProxyKeyState::kClaimed), "claimed");
  EXPECT_EQ(parse_proxy_key_state("released"), std::nullopt);
  EXPECT_EQ(parse_proxy_key_state("Claimed"), std::nullopt);
  EXPECT_EQ(parse_proxy_key_state(""), std::nullopt);
}

}  // namespace
}  // namespace hookd::store::testing
