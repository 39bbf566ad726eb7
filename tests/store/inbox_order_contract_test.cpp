// Contract: events of one entity are never applied backwards (A40, A20, A19). While an event
// of an entity is in flight (claimed, lease alive) nothing else of that entity is claimable,
// whatever sorts before it; an expired lease makes the in-flight event itself claimable again
// (crash recovery); the entity state a status change writes never lowers last_sequence and
// never leaves a terminal state. The last test drives random interleavings of arrival, claim
// and record (seeded, so a failure repeats) and checks what a forwarder would have sent.
#include <map>
#include <optional>
#include <random>
#include <set>
#include <utility>

#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

InboxEvent in_entity(const std::string& event_id, const std::string& entity,
                     std::optional<std::int64_t> seq) {
  InboxEvent e;
  e.source = "esign";
  e.event_id = event_id;
  e.entity_key = entity;
  e.sequence = seq;
  e.payload = R"({"id":")" + event_id + "\"}";
  return e;
}

InboxStatusUpdate settle(const InboxEvent& e, InboxStatus to = InboxStatus::kProcessed) {
  InboxStatusUpdate u;
  u.id = e.id;
  u.lease_owner = e.lease_owner.value_or("");
  u.to = to;
  u.note = std::string(to_string(to));
  return u;
}

InboxEntity entity_state(const std::string& key, std::optional<std::int64_t> last,
                         std::optional<std::string> state = {}, bool terminal = false) {
  InboxEntity e;
  e.source = "esign";
  e.entity_key = key;
  e.last_sequence = last;
  e.state = std::move(state);
  e.terminal = terminal;
  return e;
}

InboxClaimRequest claim_request(int limit = 100, Millis lease_ms = 30'000) {
  InboxClaimRequest req;
  req.lease_owner = "fw";
  req.limit = limit;
  req.lease_ms = lease_ms;
  return req;
}

std::vector<std::string> claimed_ids(Store& store, const InboxClaimRequest& req) {
  std::vector<std::string> out;
  const auto claimed = store.inbox_claim(req).value();
  for (const auto& e : claimed) out.push_back(e.event_id);
  std::sort(out.begin(), out.end());
  return out;
}

// "contract-signed" depends on "contract-created"; both inserted and claimed (in flight).
// Returns {dependency, dependent} as claimed, or nothing when the claim did not take both.
std::optional<std::pair<InboxEvent, InboxEvent>> claim_dependency_pair(Store& store) {
  InboxEvent dependency = in_entity("contract-created", "c-1", std::nullopt);
  dependency.entity_key.reset();
  InboxEvent dependent = in_entity("contract-signed", "c-1", std::nullopt);
  dependent.entity_key.reset();
  dependent.depends_on = {"contract-created"};
  if (!store.inbox_insert(dependency) || !store.inbox_insert(dependent)) return std::nullopt;
  auto claimed = store.inbox_claim(claim_request()).value();
  if (claimed.size() != 2u) return std::nullopt;
  if (claimed[0].event_id != "contract-created") std::swap(claimed[0], claimed[1]);
  return std::make_pair(claimed[0], claimed[1]);
}

TEST_P(StoreContract, A40_NothingOfAnEntityIsClaimableWhileOneOfItsEventsIsInFlight) {
  ASSERT_TRUE(store_->inbox_insert(in_entity("s3", "k", 3)).has_value());
  auto first = store_->inbox_claim(claim_request()).value();
  ASSERT_EQ(first.size(), 1u);
  const InboxEvent three = first[0];
  // 1 and 2 arrive while 3 is in flight: they sort before it, but must wait for it.
  ASSERT_TRUE(store_->inbox_insert(in_entity("s1", "k", 1)).has_value());
  ASSERT_TRUE(store_->inbox_insert(in_entity("s2", "k", 2)).has_value());
  ASSERT_TRUE(store_->inbox_insert(in_entity("other", "k2", 1)).has_value());
  EXPECT_EQ(claimed_ids(*store_, claim_request()), (std::vector<std::string>{"other"}));
  EXPECT_TRUE(claimed_ids(*store_, claim_request()).empty());

  auto done = settle(three);
  done.entity = entity_state("k", 3);
  ASSERT_TRUE(store_->inbox_update_status(done).has_value());
  // Now the entity is as of 3: its head (1) is claimable, and is stale against it.
  auto next = store_->inbox_claim(claim_request()).value();
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].event_id, "s1");
  EXPECT_EQ(store_->inbox_entity("esign", "k")->last_sequence, 3);
  ASSERT_TRUE(store_->inbox_update_status(settle(next[0], InboxStatus::kStale)).has_value());
  EXPECT_EQ(claimed_ids(*store_, claim_request()), (std::vector<std::string>{"s2"}));
}

TEST_P(StoreContract, A40_AnEventIsInFlightUntilItsOutcomeIsWritten) {
  // A claimed event stays in flight until its outcome (processed, stale, retry, ...) is
  // written; a failed forward waiting for its retry is not in flight.
  store_->inbox_insert(in_entity("s5", "k", 5));
  auto five = store_->inbox_claim(claim_request()).value().at(0);
  store_->inbox_insert(in_entity("s4", "k", 4));
  EXPECT_TRUE(claimed_ids(*store_, claim_request()).empty());
  auto park = settle(five, InboxStatus::kRetry);
  park.next_attempt_at = clock_.now_ms() + 1000;
  ASSERT_TRUE(store_->inbox_update_status(park).has_value());
  // Not in flight any more (waiting to retry): the order by sequence applies again.
  EXPECT_EQ(claimed_ids(*store_, claim_request()), (std::vector<std::string>{"s4"}));
}

TEST_P(StoreContract, A40_AnExpiredLeaseMakesTheInFlightEventClaimableNotTheOlderOnes) {
  store_->inbox_insert(in_entity("s3", "k", 3));
  ASSERT_EQ(claimed_ids(*store_, claim_request(100, 1000)), (std::vector<std::string>{"s3"}));
  store_->inbox_insert(in_entity("s1", "k", 1));
  EXPECT_TRUE(claimed_ids(*store_, claim_request()).empty());
  clock_.advance(1000);  // the node holding 3 died: 3 may have been forwarded, it goes first
  EXPECT_EQ(claimed_ids(*store_, claim_request()), (std::vector<std::string>{"s3"}));
  EXPECT_TRUE(claimed_ids(*store_, claim_request()).empty());
}

TEST_P(StoreContract, A40_EntityStateNeverGoesBackwardsNorLeavesATerminalState) {  // A19
  auto write = [&](const std::string& id, std::int64_t seq, const InboxEntity& state) {
    store_->inbox_insert(in_entity(id, "e-" + id, seq));
    auto claimed = store_->inbox_claim(claim_request()).value();
    ASSERT_EQ(claimed.size(), 1u);
    auto u = settle(claimed[0]);
    u.entity = state;
    ASSERT_TRUE(store_->inbox_update_status(u).has_value());
  };
  write("a", 5, entity_state("k", 5, "signed", true));
  // A round that decided on an old snapshot of the entity writes an older state.
  write("b", 3, entity_state("k", 3, "sending", false));
  auto e = store_->inbox_entity("esign", "k").value();
  EXPECT_EQ(e.last_sequence, 5);
  EXPECT_EQ(e.state, "signed");
  EXPECT_TRUE(e.terminal);
  write("c", 7, entity_state("k", 7, "voided", true));  // terminal to terminal is allowed
  write("d", 9, entity_state("k", 9, "sending", false));
  write("f", 0, entity_state("k", std::nullopt, "sending", false));
  e = store_->inbox_entity("esign", "k").value();
  EXPECT_EQ(e.last_sequence, 9);
  EXPECT_EQ(e.state, "voided");
  EXPECT_TRUE(e.terminal);
  write("g", 2, entity_state("plain", 4, "sending", false));
  write("h", 1, entity_state("plain", 2, "viewed", false));
  e = store_->inbox_entity("esign", "plain").value();
  EXPECT_EQ(e.last_sequence, 4);
  EXPECT_EQ(e.state, "sending");
}

// A forwarder in miniature: claims, decides stale against the entity read after the claim,
// "forwards" (records what it sent) and writes processed with the entity moved to the event.
class MiniForwarder {
 public:
  explicit MiniForwarder(Store& store) : store_(store) {}

  // Returns how many events it claimed.
  std::size_t claim(int limit) {
    auto claimed = store_.inbox_claim(claim_request(limit)).value();
    for (auto& e : claimed) {
      EXPECT_TRUE(held_entities_.insert(*e.entity_key).second)
          << "two events of entity " << *e.entity_key << " in flight at once";
      auto entity = store_.inbox_entity("esign", *e.entity_key);
      const auto last = entity ? entity->last_sequence : std::nullopt;
      const bool stale = last && *e.sequence <= *last;
      if (!stale) sent_[*e.entity_key].push_back(*e.sequence);
      held_.push_back({std::move(e), stale, last});
    }
    return claimed.size();
  }

  void record(std::size_t pick) {
    if (held_.empty()) return;
    auto [event, stale, last] = held_[pick % held_.size()];
    held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(pick % held_.size()));
    held_entities_.erase(*event.entity_key);
    auto u = settle(event, stale ? InboxStatus::kStale : InboxStatus::kProcessed);
    // As the forwarder: the entity read when the event was claimed, moved to the event.
    if (!stale)
      u.entity = entity_state(*event.entity_key, std::max(last.value_or(0), *event.sequence));
    ASSERT_TRUE(store_.inbox_update_status(u).has_value());
  }

  bool idle() const { return held_.empty(); }
  const std::map<std::string, std::vector<std::int64_t>>& sent() const { return sent_; }

 private:
  struct Held {
    InboxEvent event;
    bool stale = false;
    std::optional<std::int64_t> last;  // the entity's last_sequence read at claim time
  };
  Store& store_;
  std::vector<Held> held_;
  std::set<std::string> held_entities_;
  std::map<std::string, std::vector<std::int64_t>> sent_;
};

TEST_P(StoreContract, A40_RandomInterleavingsNeverApplyAnEntityBackwards) {  // A20
  constexpr int kEntities = 40;
  const std::vector<std::int64_t> order = {3, 1, 2};
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    std::mt19937 rng(seed);
    MiniForwarder fw(*store_);
    std::vector<std::size_t> next(kEntities, 0);  // per entity: how many of its events arrived
    std::size_t arrived = 0;
    const auto key = [&](int i) { return "r" + std::to_string(seed) + "-e" + std::to_string(i); };
    while (arrived < kEntities * order.size() || !fw.idle()) {
      const auto action = rng() % 3;
      if (action == 0 && arrived < kEntities * order.size()) {
        int i = static_cast<int>(rng() % kEntities);
        while (next[i] == order.size()) i = (i + 1) % kEntities;
        const auto seq = order[next[i]++];
        ++arrived;
        store_->inbox_insert(in_entity(key(i) + "-s" + std::to_string(seq), key(i), seq));
      } else if (action == 1) {
        fw.claim(static_cast<int>(1 + rng() % 8));
      } else {
        fw.record(rng());
      }
      clock_.advance(1);
    }
    while (fw.claim(100) > 0) {  // whatever is left (stale by now), head after head
      while (!fw.idle()) fw.record(0);
    }
    ASSERT_TRUE(store_->inbox_claim(claim_request()).value().empty());
    for (int i = 0; i < kEntities; ++i) {
      const auto sent =
          fw.sent().count(key(i)) ? fw.sent().at(key(i)) : std::vector<std::int64_t>{};
      ASSERT_FALSE(sent.empty()) << key(i);
      EXPECT_TRUE(std::is_sorted(sent.begin(), sent.end()) &&
                  std::adjacent_find(sent.begin(), sent.end()) == sent.end())
          << key(i) << " forwarded " << ::testing::PrintToString(sent);
      EXPECT_EQ(store_->inbox_entity("esign", key(i))->last_sequence, 3) << key(i);
    }
  }
}

// A21 across nodes: the forwarder decided "park" (the dependency was in flight) but the
// dependency settled — and its release ran, finding nothing parked yet — before the park was
// written. The park write itself must notice and make the event due now, or it waits for
// park_timeout instead of following its dependency (the order of these two writes is what
// two nodes produce; the same order on one store is the deterministic form of that race).
TEST_P(StoreContract, A21_AnEventParkedAfterItsDependencySettledIsDueAtOnce) {
  auto pair = claim_dependency_pair(*store_);
  ASSERT_TRUE(pair.has_value());
  const auto& [dep, waiting] = *pair;

  ASSERT_TRUE(store_->inbox_update_status(settle(dep)).has_value());  // releases nothing yet
  auto park = settle(waiting, InboxStatus::kParked);
  park.next_attempt_at = clock_.now_ms() + 15 * 60'000;  // the forwarder's park_timeout
  ASSERT_TRUE(store_->inbox_update_status(park).has_value());

  EXPECT_EQ(claimed_ids(*store_, claim_request()), (std::vector<std::string>{"contract-signed"}))
      << "the parked event must be due at once: its dependency had already settled";
}

TEST_P(StoreContract, A21_AnEventParkedWhileItsDependencyIsOpenStaysParked) {
  auto pair = claim_dependency_pair(*store_);
  ASSERT_TRUE(pair.has_value());
  const InboxEvent& waiting = pair->second;
  auto park = settle(waiting, InboxStatus::kParked);
  park.next_attempt_at = clock_.now_ms() + 15 * 60'000;
  ASSERT_TRUE(store_->inbox_update_status(park).has_value());
  EXPECT_TRUE(claimed_ids(*store_, claim_request()).empty());  // the dependency is in flight
}

}  // namespace
}  // namespace hookd::store::testing
