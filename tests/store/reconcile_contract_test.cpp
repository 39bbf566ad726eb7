// Contract: the reconciler's store (ReconcileStore, docs/reconciliation.md) on every engine.
// One run per source at a time (a lease: concurrent begins give it to exactly one caller); a
// feed page is kept only under the lease, records each missing item once (an item in the
// inbox is no difference) and repairs it through the inbound insert; a person's action
// applies to open differences only, with its effect and audit entry in one transaction; the
// parked event of a parked_timeout difference is released with the dependency header.
#include <nlohmann/json.hpp>

#include <atomic>
#include <barrier>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

constexpr std::int64_t kReconcileLease = 60'000;
const std::string kSource = "esign";
const std::string kReconcileOwnerA = "node-a/reconcile";
const std::string kReconcileOwnerB = "node-b/reconcile";

InboxEvent event_of(const std::string& event_id, std::string payload = "") {
  InboxEvent e;
  e.source = kSource;
  e.event_id = event_id;
  e.entity_key = "contract-" + event_id;
  e.business_key = "bk-" + event_id;
  e.sequence = 3;
  e.event_time = 1'600'000'000'000;
  e.headers = {{"webhook-id", event_id}, {"content-type", "application/json"}};
  e.payload = payload.empty() ? R"({"id":")" + event_id + "\"}" : std::move(payload);
  return e;
}

Evidence evidence_of(const std::string& what) {
  Evidence ev;
  ev.request = "GET http://127.0.0.1:9/feed?iterator=" + what;
  ev.status = 200;
  ev.excerpt = R"({"data":[)" + what + "]}";
  ev.sha256 = std::string(64, 'c');
  return ev;
}

ReconcileItem item_of(const std::string& event_id, std::string payload = "") {
  ReconcileItem item;
  item.event = event_of(event_id, std::move(payload));
  item.difference.kind = DifferenceKind::kMissing;
  item.difference.subject = event_id;
  item.difference.event_id = event_id;
  item.difference.local_state = "absent";
  item.difference.detail = "feed item " + event_id + " was never received";
  item.difference.evidence = evidence_of(event_id);
  return item;
}

Difference finding_of(DifferenceKind kind, const std::string& subject) {
  Difference d;
  d.source = kSource;
  d.kind = kind;
  d.subject = subject;
  d.detail = "found " + subject;
  d.evidence = evidence_of(subject);
  if (kind == DifferenceKind::kStuck || kind == DifferenceKind::kStateMismatch) {
    d.entity_key = subject.substr(0, subject.find('\n'));
    d.local_state = "pending";
    d.remote_state = kind == DifferenceKind::kStuck ? "pending" : "completed";
  } else {
    d.event_id = subject;
    d.local_state = "parked";
  }
  return d;
}

DifferenceAct act_of(const std::string& id, DifferenceAction action,
                     const std::string& reason = "checked with the provider") {
  DifferenceAct a;
  a.difference_id = id;
  a.action = action;
  a.by = "ops-token";
  a.reason = reason;
  return a;
}

class ReconcileTest : public StoreContract {
 protected:
  ReconcileStart begin(const std::string& owner = kReconcileOwnerA,
                       std::int64_t lease_ms = kReconcileLease) {
    auto r = store_->reconcile_begin(kSource, owner, lease_ms, "api");
    EXPECT_TRUE(r.has_value()) << r.error().message;
    return r.value_or(ReconcileStart{});
  }

  ReconcilePage page_of(const ReconcileStart& start, std::vector<ReconcileItem> items,
                        bool repair = true, const std::string& next_cursor = "c-1") {
    ReconcilePage p;
    p.source = kSource;
    p.run_id = start.run.id;
    p.lease_owner = start.run.owner;
    p.items = std::move(items);
    p.repair = repair;
    p.next_cursor = next_cursor;
    return p;
  }

  ReconcilePageResult apply(const ReconcilePage& p) {
    auto r = store_->reconcile_apply_page(p);
    EXPECT_TRUE(r.has_value()) << r.error().message;
    return r.value_or(ReconcilePageResult{});
  }

  // A difference recorded outside a page (no repair), returned with its id.
  Difference record(const Difference& d, bool repair = false) {
    DifferenceFinding f;
    f.difference = d;
    f.repair = repair;
    auto r = store_->reconcile_record({f});
    EXPECT_TRUE(r.has_value()) << r.error().message;
    if (!r || r->size() != 1) {
      ADD_FAILURE() << "finding " << d.subject << " not recorded";
      return {};
    }
    return r->at(0);
  }

  // A missing difference recorded without repair (repair = "manual").
  Difference manual(const std::string& event_id, std::string payload = "") {
    auto start = begin();
    auto r = apply(page_of(start, {item_of(event_id, std::move(payload))}, /*repair=*/false));
    EXPECT_TRUE(store_->reconcile_finish(start.run.id, kReconcileOwnerA, std::nullopt).has_value());
    if (r.recorded.size() != 1) {
      ADD_FAILURE() << event_id << " not recorded";
      return {};
    }
    return r.recorded[0];
  }

  Difference get(const std::string& id) {
    auto r = store_->reconcile_get_difference(id);
    EXPECT_TRUE(r.has_value()) << id << ": " << (r ? "" : r.error().message);
    return r.value_or(Difference{});
  }

  std::vector<DifferenceActionRecord> actions(const std::string& id) {
    auto r = store_->reconcile_actions(id);
    EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
    return r.value_or(std::vector<DifferenceActionRecord>{});
  }

  std::vector<InboxEvent> inbox() {
    PageRequest all;
    all.limit = PageRequest::kMaxLimit;
    auto r = store_->inbox_list(InboxFilter{}, all);
    EXPECT_TRUE(r.has_value());
    return r ? r->data : std::vector<InboxEvent>{};
  }

  std::vector<Difference> all_differences(const DifferenceFilter& filter = {}) {
    PageRequest all;
    all.limit = PageRequest::kMaxLimit;
    auto r = store_->reconcile_list_differences(filter, all);
    EXPECT_TRUE(r.has_value());
    return r ? r->data : std::vector<Difference>{};
  }

  // Takes the next due event and moves it to `to` (with the forwarder's update fields).
  InboxEvent forward(const std::string& event_id, InboxStatus to,
                     std::function<void(InboxStatusUpdate&)> tweak = {}) {
    InboxClaimRequest req;
    req.lease_owner = "fw";
    req.limit = 100;
    auto claimed = store_->inbox_claim(req).value_or(std::vector<InboxEvent>{});
    InboxEvent out;
    for (const auto& e : claimed) {
      InboxStatusUpdate u;
      u.id = e.id;
      u.lease_owner = "fw";
      u.to = e.event_id == event_id ? to : InboxStatus::kRetry;
      u.note = "forwarded";
      u.next_attempt_at = clock_.now_ms() + 1'000'000;
      if (e.event_id == event_id && tweak) tweak(u);
      auto r = store_->inbox_update_status(u);
      EXPECT_TRUE(r.has_value()) << r.error().message;
      if (e.event_id == event_id && r) out = *r;
    }
    EXPECT_EQ(out.event_id, event_id) << "not claimable";
    return out;
  }

  // An event parked past park_timeout, as the forwarder writes it.
  InboxEvent timed_out(const std::string& event_id, std::vector<std::string> depends_on) {
    InboxEvent e = event_of(event_id);
    e.entity_key.reset();
    e.depends_on = std::move(depends_on);
    EXPECT_TRUE(store_->inbox_insert(e).has_value());
    return forward(event_id, InboxStatus::kParked, [](InboxStatusUpdate& u) {
      u.error = "park_timeout";
      u.note = "park_timeout: flagged for reconciliation";
    });
  }

  std::string inbox_find_id(const std::string& event_id) {
    auto r = store_->inbox_find(kSource, event_id);
    EXPECT_TRUE(r.has_value());
    return r ? r->id : std::string();
  }

  std::vector<AuditEntry> audit_of(const std::string& target) {
    auto r = store_->list_audit(audit_by_target(target), PageRequest{});
    EXPECT_TRUE(r.has_value());
    return r ? r->data : std::vector<AuditEntry>{};
  }
};

// ---- the lease and runs ----

TEST_P(ReconcileTest, BeginTakesTheLeaseAndOpensARun) {
  const std::int64_t now = clock_.now_ms();
  auto start = begin();
  EXPECT_TRUE(start.run.id.starts_with("rcr_")) << start.run.id;
  EXPECT_EQ(start.run.source, kSource);
  EXPECT_EQ(start.run.trigger, "api");
  EXPECT_EQ(start.run.owner, kReconcileOwnerA);
  EXPECT_EQ(start.run.started_at, now);
  EXPECT_FALSE(start.run.finished_at.has_value());
  EXPECT_EQ(start.cursor.source, kSource);
  EXPECT_EQ(start.cursor.cursor, "");
  EXPECT_FALSE(start.cursor.watermark_at.has_value());

  auto cursor = store_->reconcile_cursor(kSource);
  ASSERT_TRUE(cursor.has_value());
  EXPECT_EQ(cursor->lease_owner, kReconcileOwnerA);
  EXPECT_EQ(cursor->lease_until, now + kReconcileLease);

  auto run = store_->reconcile_get_run(start.run.id);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->owner, kReconcileOwnerA);
  EXPECT_EQ(run->items_read, 0);
  EXPECT_EQ(store_->reconcile_get_run("rcr_nope").error().code, ErrorCode::kNotFound);

  // Another owner waits for the lease; another source is free.
  auto taken = store_->reconcile_begin(kSource, kReconcileOwnerB, kReconcileLease, "interval");
  ASSERT_FALSE(taken.has_value());
  EXPECT_EQ(taken.error().code, ErrorCode::kConflict);
  EXPECT_TRUE(
      store_->reconcile_begin("github", kReconcileOwnerB, kReconcileLease, "interval").has_value());
}

TEST_P(ReconcileTest, AnUnknownSourceHasAnEmptyCursor) {
  auto cursor = store_->reconcile_cursor("never-run");
  ASSERT_TRUE(cursor.has_value());
  EXPECT_EQ(cursor->source, "never-run");
  EXPECT_EQ(cursor->cursor, "");
  EXPECT_FALSE(cursor->lease_owner.has_value());
}

TEST_P(ReconcileTest, TheOwnerMayRetakeItsLeaseAndAnExpiredLeaseIsFree) {
  auto first = begin(kReconcileOwnerA, 1000);
  clock_.advance(500);
  auto again = begin(kReconcileOwnerA, 1000);  // the same owner (a restarted node)
  EXPECT_NE(again.run.id, first.run.id);
  EXPECT_EQ(store_->reconcile_cursor(kSource)->lease_until, clock_.now_ms() + 1000);
  clock_.advance(999);
  EXPECT_EQ(store_->reconcile_begin(kSource, kReconcileOwnerB, 1000, "api").error().code,
            ErrorCode::kConflict);
  clock_.advance(1);  // lease_until <= now: free
  auto theirs = begin(kReconcileOwnerB, 1000);
  EXPECT_EQ(theirs.run.owner, kReconcileOwnerB);
  EXPECT_EQ(store_->reconcile_cursor(kSource)->lease_owner, kReconcileOwnerB);
  // The runs the earlier holders left open are closed as interrupted, not "running" forever;
  // the new holder's is open.
  for (const auto* id : {&first.run.id, &again.run.id}) {
    auto run = store_->reconcile_get_run(*id);
    ASSERT_TRUE(run.has_value());
    EXPECT_TRUE(run->finished_at.has_value()) << *id;
    EXPECT_EQ(run->error.value_or(""), std::string(kInterruptedRunError)) << *id;
  }
  EXPECT_FALSE(store_->reconcile_get_run(theirs.run.id)->finished_at.has_value());
}

TEST_P(ReconcileTest, ConcurrentBeginsGiveTheLeaseToExactlyOne) {
  constexpr int kThreads = 8;
  std::barrier start(kThreads);
  std::atomic<int> won{0}, refused{0}, other{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      auto r = store_->reconcile_begin(kSource, "node-" + std::to_string(i) + "/reconcile",
                                       kReconcileLease, "interval");
      if (r) {
        ++won;
      } else if (r.error().code == ErrorCode::kConflict) {
        ++refused;
      } else {
        ++other;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(won.load(), 1);
  EXPECT_EQ(refused.load(), kThreads - 1);
  EXPECT_EQ(other.load(), 0);
  auto runs = store_->reconcile_list_runs(kSource, PageRequest{});
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->data.size(), 1u);
  EXPECT_EQ(store_->reconcile_cursor(kSource)->lease_owner, runs->data[0].owner);
}

TEST_P(ReconcileTest, FinishClosesTheRunAndReleasesTheLease) {
  auto start = begin();
  clock_.advance(250);
  auto done = store_->reconcile_finish(start.run.id, kReconcileOwnerA, std::nullopt);
  ASSERT_TRUE(done.has_value()) << done.error().message;
  EXPECT_EQ(done->finished_at, clock_.now_ms());
  EXPECT_FALSE(done->error.has_value());
  EXPECT_EQ(store_->reconcile_get_run(start.run.id)->finished_at, clock_.now_ms());
  EXPECT_FALSE(store_->reconcile_cursor(kSource)->lease_owner.has_value());
  EXPECT_TRUE(
      store_->reconcile_begin(kSource, kReconcileOwnerB, kReconcileLease, "api").has_value());
  EXPECT_EQ(store_->reconcile_finish("rcr_nope", kReconcileOwnerA, std::nullopt).error().code,
            ErrorCode::kNotFound);
}

TEST_P(ReconcileTest, FinishAfterALostLeaseClosesTheRunButLeavesTheNewHolder) {
  auto mine = begin(kReconcileOwnerA, 1000);
  clock_.advance(1000);
  auto theirs = begin(kReconcileOwnerB, kReconcileLease);
  auto done = store_->reconcile_finish(mine.run.id, kReconcileOwnerA, std::string("lease lost"));
  ASSERT_TRUE(done.has_value()) << done.error().message;
  EXPECT_EQ(done->error, "lease lost");
  EXPECT_EQ(done->finished_at, clock_.now_ms());
  EXPECT_EQ(store_->reconcile_cursor(kSource)->lease_owner, kReconcileOwnerB);
  EXPECT_EQ(
      store_->reconcile_begin(kSource, "node-c/reconcile", kReconcileLease, "api").error().code,
      ErrorCode::kConflict);
  EXPECT_FALSE(store_->reconcile_get_run(theirs.run.id)->finished_at.has_value());
}

// ---- feed pages ----

TEST_P(ReconcileTest, APageRecordsAndRepairsWhatTheInboxMisses) {
  ASSERT_TRUE(store_->inbox_insert(event_of("evt-1")).has_value());  // the webhook came
  auto start = begin();
  clock_.advance(10);
  const std::int64_t now = clock_.now_ms();
  auto p = page_of(start, {item_of("evt-1"), item_of("evt-2"), item_of("evt-3")});
  p.next_cursor = "cursor-2";
  p.watermark_at = 1'600'000'000'500;
  auto r = apply(p);
  ASSERT_EQ(r.recorded.size(), 2u);
  EXPECT_EQ(r.repaired, 2);
  EXPECT_EQ(r.recorded[0].subject, "evt-2");  // item order
  EXPECT_EQ(r.recorded[1].subject, "evt-3");
  for (const auto& d : r.recorded) {
    SCOPED_TRACE(d.subject);
    EXPECT_TRUE(d.id.starts_with("rcd_")) << d.id;
    EXPECT_EQ(d.run_id, start.run.id);
    EXPECT_EQ(d.source, kSource);
    EXPECT_EQ(d.kind, DifferenceKind::kMissing);
    EXPECT_EQ(d.event_id, d.subject);
    EXPECT_EQ(d.state, DifferenceState::kRepaired);
    EXPECT_EQ(d.found_at, now);
    auto stored = get(d.id);
    EXPECT_EQ(stored.state, DifferenceState::kRepaired);
    EXPECT_EQ(stored.run_id, start.run.id);
    EXPECT_EQ(stored.local_state, "absent");
    EXPECT_EQ(stored.detail, "feed item " + d.subject + " was never received");
    EXPECT_EQ(stored.evidence.request, evidence_of(d.subject).request);
    EXPECT_EQ(stored.evidence.status, 200);
    EXPECT_EQ(stored.evidence.excerpt, evidence_of(d.subject).excerpt);
    EXPECT_EQ(stored.evidence.sha256, std::string(64, 'c'));
    EXPECT_EQ(stored.found_at, now);

    auto ev = store_->inbox_find(kSource, d.subject);
    ASSERT_TRUE(ev.has_value());
    EXPECT_EQ(ev->status, InboxStatus::kReceived);
    EXPECT_EQ(ev->payload, R"({"id":")" + d.subject + "\"}");
    EXPECT_EQ(ev->entity_key, "contract-" + d.subject);
    EXPECT_EQ(ev->headers.at("webhook-id"), d.subject);
    auto history = store_->inbox_history(ev->id).value();
    ASSERT_EQ(history.size(), 1u);
    EXPECT_EQ(history[0].note, "reconciled: " + d.id);
    EXPECT_EQ(history[0].to, InboxStatus::kReceived);

    auto acts = actions(d.id);
    ASSERT_EQ(acts.size(), 1u);
    EXPECT_EQ(acts[0].action, DifferenceAction::kRepair);
    EXPECT_EQ(acts[0].by, "auto");
    EXPECT_EQ(acts[0].at, now);
  }
  // The event the webhook delivered is no difference and was not touched.
  EXPECT_EQ(all_differences().size(), 2u);
  EXPECT_EQ(store_->inbox_history(store_->inbox_find(kSource, "evt-1")->id)->at(0).note,
            "received");
  EXPECT_EQ(inbox().size(), 3u);

  auto cursor = store_->reconcile_cursor(kSource).value();
  EXPECT_EQ(cursor.cursor, "cursor-2");
  EXPECT_EQ(cursor.watermark_at, 1'600'000'000'500);
  auto run = store_->reconcile_get_run(start.run.id).value();
  EXPECT_EQ(run.items_read, 3);
  EXPECT_EQ(run.differences_found, 2);
  EXPECT_EQ(run.repaired, 2);
}

TEST_P(ReconcileTest, APageAppliedTwiceRecordsAndInsertsNothingNew) {
  for (bool repair : {true, false}) {
    SCOPED_TRACE(repair ? "repair" : "manual");
    const std::string prefix = repair ? "auto-" : "manual-";
    auto start = begin();
    auto p = page_of(start, {item_of(prefix + "1"), item_of(prefix + "2")}, repair);
    EXPECT_EQ(apply(p).recorded.size(), 2u);
    const auto inbox_before = inbox().size();
    const auto differences_before = all_differences().size();
    clock_.advance(5);
    auto again = apply(p);  // a kill -9 after the commit: the page is read again
    EXPECT_TRUE(again.recorded.empty());
    EXPECT_EQ(again.repaired, 0);
    EXPECT_EQ(inbox().size(), inbox_before);
    EXPECT_EQ(all_differences().size(), differences_before);
    auto run = store_->reconcile_get_run(start.run.id).value();
    EXPECT_EQ(run.items_read, 4);
    EXPECT_EQ(run.differences_found, 2);
    EXPECT_EQ(run.repaired, repair ? 2 : 0);
    ASSERT_TRUE(store_->reconcile_finish(start.run.id, kReconcileOwnerA, std::nullopt).has_value());
  }
}

TEST_P(ReconcileTest, AnItemTwiceInOnePageIsRecordedOnce) {
  auto start = begin();
  auto r = apply(page_of(start, {item_of("dup"), item_of("dup"), item_of("other")}));
  ASSERT_EQ(r.recorded.size(), 2u);
  EXPECT_EQ(r.recorded[0].subject, "dup");
  EXPECT_EQ(r.recorded[1].subject, "other");
  EXPECT_EQ(r.repaired, 2);
  EXPECT_EQ(inbox().size(), 2u);
  EXPECT_EQ(store_->reconcile_get_run(start.run.id)->items_read, 3);
}

TEST_P(ReconcileTest, ItemsWithoutEvidenceGetThePagesOwn) {
  auto start = begin();
  auto bare = item_of("bare");
  bare.difference.evidence = Evidence{};
  auto p = page_of(start, {bare, item_of("own")});
  p.evidence = evidence_of("the-page");
  auto r = apply(p);
  ASSERT_EQ(r.recorded.size(), 2u);
  for (const auto& d : {store_->reconcile_get_difference(r.recorded[0].id).value(),
                        store_->reconcile_get_difference(r.recorded[1].id).value()}) {
    const auto expected = d.subject == "bare" ? evidence_of("the-page") : evidence_of("own");
    EXPECT_EQ(d.evidence.request, expected.request) << d.subject;
    EXPECT_EQ(d.evidence.status, expected.status) << d.subject;
    EXPECT_EQ(d.evidence.excerpt, expected.excerpt) << d.subject;
    EXPECT_EQ(d.evidence.sha256, expected.sha256) << d.subject;
  }
}

TEST_P(ReconcileTest, APageUnderALostLeaseKeepsNothing) {
  auto mine = begin(kReconcileOwnerA, 1000);
  clock_.advance(1000);  // ran out
  auto p = page_of(mine, {item_of("evt-1"), item_of("evt-2")}, true, "moved");
  p.watermark_at = 5;
  auto lost = store_->reconcile_apply_page(p);
  ASSERT_FALSE(lost.has_value());
  EXPECT_EQ(lost.error().code, ErrorCode::kConflict);

  auto theirs = begin(kReconcileOwnerB, kReconcileLease);  // taken over meanwhile
  lost = store_->reconcile_apply_page(p);
  ASSERT_FALSE(lost.has_value());
  EXPECT_EQ(lost.error().code, ErrorCode::kConflict);

  auto wrong_owner = page_of(theirs, {item_of("evt-1")});
  wrong_owner.lease_owner = kReconcileOwnerA;
  EXPECT_EQ(store_->reconcile_apply_page(wrong_owner).error().code, ErrorCode::kConflict);

  EXPECT_TRUE(inbox().empty());
  EXPECT_TRUE(all_differences().empty());
  auto cursor = store_->reconcile_cursor(kSource).value();
  EXPECT_EQ(cursor.cursor, "");
  EXPECT_FALSE(cursor.watermark_at.has_value());
  EXPECT_EQ(cursor.lease_owner, kReconcileOwnerB);
  EXPECT_EQ(store_->reconcile_get_run(mine.run.id)->items_read, 0);
}

TEST_P(ReconcileTest, APageRenewsTheLeaseOnlyWhenAsked) {
  auto start = begin(kReconcileOwnerA, 1000);
  clock_.advance(400);
  auto p = page_of(start, {}, true, "c-1");
  p.watermark_at = 77;
  apply(p);  // lease_ms 0: unchanged
  EXPECT_EQ(store_->reconcile_cursor(kSource)->lease_until, clock_.now_ms() - 400 + 1000);
  p.lease_ms = 5000;
  p.next_cursor = "c-2";
  p.watermark_at.reset();  // unchanged
  apply(p);
  auto cursor = store_->reconcile_cursor(kSource).value();
  EXPECT_EQ(cursor.lease_until, clock_.now_ms() + 5000);
  EXPECT_EQ(cursor.cursor, "c-2");
  EXPECT_EQ(cursor.watermark_at, 77);
  clock_.advance(4000);  // past the first lease, within the renewed one
  EXPECT_TRUE(store_->reconcile_apply_page(p).has_value());
}

TEST_P(ReconcileTest, APageOfAnUnknownRunFailsAndKeepsNothing) {
  auto start = begin();
  auto p = page_of(start, {item_of("evt-1")});
  p.run_id = "rcr_nope";
  auto r = store_->reconcile_apply_page(p);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(inbox().empty());
  EXPECT_TRUE(all_differences().empty());
  EXPECT_EQ(store_->reconcile_cursor(kSource)->cursor, "");
}

TEST_P(ReconcileTest, ThePayloadAndTheEvidenceAreKeptByteForByte) {
  const std::string binary("\x00\xff\xfe{\"a\":\x01}\r\n\\\"", 14);
  const std::string spaced = "{ \"b\" :  [ 1 ,2 ]\n\t, \"c\":\"\\u00e9\"  }  ";
  auto start = begin();
  auto a = item_of("bin", binary);
  a.event.depends_on = {"dep-1", "dep,2"};
  a.event.headers["x-odd"] = "a \"quoted\" \\ value";
  a.difference.evidence.excerpt = std::string("\x00\xff partial \xe2\x82", 13);
  auto b = item_of("spaced", spaced);
  b.event.business_key.reset();
  b.event.sequence.reset();
  b.difference.evidence.excerpt = std::string(kMaxEvidenceExcerpt + 100, 'x');
  b.difference.evidence.status.reset();
  auto r = apply(page_of(start, {a, b}, /*repair=*/false));
  ASSERT_EQ(r.recorded.size(), 2u);

  auto kept = get(r.recorded[0].id);
  ASSERT_TRUE(kept.repair_event.has_value());
  EXPECT_EQ(kept.repair_event->payload, binary);
  EXPECT_EQ(kept.repair_event->source, kSource);
  EXPECT_EQ(kept.repair_event->event_id, "bin");
  EXPECT_EQ(kept.repair_event->business_key, "bk-bin");
  EXPECT_EQ(kept.repair_event->entity_key, "contract-bin");
  EXPECT_EQ(kept.repair_event->sequence, 3);
  EXPECT_EQ(kept.repair_event->event_time, 1'600'000'000'000);
  EXPECT_EQ(kept.repair_event->depends_on, (std::vector<std::string>{"dep-1", "dep,2"}));
  EXPECT_EQ(kept.repair_event->headers, a.event.headers);
  EXPECT_EQ(kept.evidence.excerpt, a.difference.evidence.excerpt);

  auto odd = get(r.recorded[1].id);
  ASSERT_TRUE(odd.repair_event.has_value());
  EXPECT_EQ(odd.repair_event->payload, spaced);
  EXPECT_FALSE(odd.repair_event->business_key.has_value());
  EXPECT_FALSE(odd.repair_event->sequence.has_value());
  EXPECT_EQ(odd.evidence.excerpt, std::string(kMaxEvidenceExcerpt, 'x'));
  EXPECT_FALSE(odd.evidence.status.has_value());

  // A later repair inserts those same bytes.
  for (const auto& d : r.recorded) {
    ASSERT_TRUE(store_->reconcile_act(act_of(d.id, DifferenceAction::kRepair)).has_value());
  }
  EXPECT_EQ(store_->inbox_find(kSource, "bin")->payload, binary);
  EXPECT_EQ(store_->inbox_find(kSource, "bin")->depends_on, a.event.depends_on);
  EXPECT_EQ(store_->inbox_find(kSource, "bin")->headers, a.event.headers);
  EXPECT_EQ(store_->inbox_find(kSource, "spaced")->payload, spaced);
}

// ---- actions ----

TEST_P(ReconcileTest, AManualDifferenceIsRepairedOnceByAPerson) {
  auto d = manual("evt-9");
  EXPECT_EQ(d.state, DifferenceState::kOpen);
  EXPECT_EQ(store_->inbox_find(kSource, "evt-9").error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(actions(d.id).empty());
  EXPECT_EQ(store_->reconcile_get_run(d.run_id)->repaired, 0);

  clock_.advance(1000);
  auto repaired = store_->reconcile_act(act_of(d.id, DifferenceAction::kRepair));
  ASSERT_TRUE(repaired.has_value()) << repaired.error().message;
  EXPECT_EQ(repaired->state, DifferenceState::kRepaired);
  EXPECT_EQ(repaired->updated_at, clock_.now_ms());
  EXPECT_EQ(repaired->found_at, d.found_at);
  EXPECT_EQ(get(d.id).state, DifferenceState::kRepaired);
  EXPECT_EQ(get(d.id).updated_at, clock_.now_ms());
  auto ev = store_->inbox_find(kSource, "evt-9");
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(store_->inbox_history(ev->id)->at(0).note, "reconciled: " + d.id);
  auto acts = actions(d.id);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].difference_id, d.id);
  EXPECT_EQ(acts[0].action, DifferenceAction::kRepair);
  EXPECT_EQ(acts[0].by, "ops-token");
  EXPECT_EQ(acts[0].reason, "checked with the provider");
  EXPECT_EQ(acts[0].before, "open");
  EXPECT_EQ(acts[0].after, "repaired");
  EXPECT_EQ(acts[0].at, clock_.now_ms());

  auto twice = store_->reconcile_act(act_of(d.id, DifferenceAction::kRepair));
  ASSERT_FALSE(twice.has_value());
  EXPECT_EQ(twice.error().code, ErrorCode::kConflict);
  EXPECT_EQ(inbox().size(), 1u);
  EXPECT_EQ(actions(d.id).size(), 1u);
}

TEST_P(ReconcileTest, ARepairAfterTheWebhookArrivedInsertsNothing) {
  auto d = manual("late");
  auto webhook = event_of("late", R"({"from":"the webhook"})");
  ASSERT_TRUE(store_->inbox_insert(webhook)->inserted);
  auto repaired = store_->reconcile_act(act_of(d.id, DifferenceAction::kRepair));
  ASSERT_TRUE(repaired.has_value()) << repaired.error().message;
  EXPECT_EQ(repaired->state, DifferenceState::kRepaired);
  ASSERT_EQ(inbox().size(), 1u);
  auto ev = store_->inbox_find(kSource, "late").value();
  EXPECT_EQ(ev.payload, R"({"from":"the webhook"})");
  auto history = store_->inbox_history(ev.id).value();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].note, "received");
}

TEST_P(ReconcileTest, OnlyAnOpenDifferenceTakesRepairIgnoreOrCorrectState) {
  auto d = manual("evt-1");
  auto ignored = store_->reconcile_act(act_of(d.id, DifferenceAction::kIgnore, "test data"));
  ASSERT_TRUE(ignored.has_value()) << ignored.error().message;
  EXPECT_EQ(ignored->state, DifferenceState::kResolved);
  EXPECT_EQ(actions(d.id).at(0).after, "resolved");
  EXPECT_EQ(actions(d.id).at(0).reason, "test data");
  for (auto action :
       {DifferenceAction::kRepair, DifferenceAction::kIgnore, DifferenceAction::kCorrectState}) {
    SCOPED_TRACE(std::string(to_string(action)));
    auto a = act_of(d.id, action);
    InboxEntity e;
    e.state = "done";
    a.entity = e;
    a.audit = audit_entry("reconcile.resolve");
    auto r = store_->reconcile_act(a);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ErrorCode::kConflict);
  }
  EXPECT_EQ(actions(d.id).size(), 1u);
  EXPECT_TRUE(inbox().empty());
  EXPECT_TRUE(audit_of(d.id).empty());  // a refused action audits nothing
  EXPECT_EQ(store_->reconcile_act(act_of("rcd_nope", DifferenceAction::kIgnore)).error().code,
            ErrorCode::kNotFound);
  EXPECT_EQ(store_->reconcile_actions("rcd_nope").error().code, ErrorCode::kNotFound);
}

TEST_P(ReconcileTest, AStuckEntityCannotBeRepaired) {
  auto d = record(finding_of(DifferenceKind::kStuck, "contract-7"));
  auto r = store_->reconcile_act(act_of(d.id, DifferenceAction::kRepair));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(get(d.id).state, DifferenceState::kOpen);
  EXPECT_TRUE(actions(d.id).empty());
  auto release = store_->reconcile_act(act_of(d.id, DifferenceAction::kRelease));
  ASSERT_FALSE(release.has_value());
  EXPECT_EQ(release.error().code, ErrorCode::kInvalidArgument);
  auto no_state = store_->reconcile_act(act_of(d.id, DifferenceAction::kCorrectState));
  ASSERT_FALSE(no_state.has_value());
  EXPECT_EQ(no_state.error().code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(actions(d.id).empty());
}

TEST_P(ReconcileTest, CorrectStateUpsertsTheEntity) {
  ASSERT_TRUE(store_->inbox_insert(event_of("e1")).has_value());
  forward("e1", InboxStatus::kProcessed, [](InboxStatusUpdate& u) {
    InboxEntity e;
    e.source = kSource;
    e.entity_key = "contract-e1";
    e.last_sequence = 3;
    e.state = "pending";
    u.entity = e;
  });
  auto d = record(finding_of(DifferenceKind::kStuck, "contract-e1"));
  clock_.advance(100);
  auto a = act_of(d.id, DifferenceAction::kCorrectState, "the provider says completed");
  InboxEntity e;
  e.state = "completed";
  e.terminal = true;  // source and key come from the difference
  a.entity = e;
  a.audit = audit_entry("reconcile.resolve");
  a.audit->target_type = "";
  auto r = store_->reconcile_act(a);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->state, DifferenceState::kResolved);
  auto entity = store_->inbox_entity(kSource, "contract-e1").value();
  EXPECT_EQ(entity.state, "completed");
  EXPECT_TRUE(entity.terminal);
  EXPECT_EQ(entity.last_sequence, 3);
  EXPECT_EQ(entity.updated_at, clock_.now_ms());
  auto acts = actions(d.id);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].action, DifferenceAction::kCorrectState);
  EXPECT_EQ(acts[0].before, "pending");
  EXPECT_EQ(acts[0].after, "completed");
  auto log = audit_of(d.id);
  ASSERT_EQ(log.size(), 1u);
  auto before = nlohmann::json::parse(log[0].before.value_or("null"));
  auto after = nlohmann::json::parse(log[0].after.value_or("null"));
  EXPECT_EQ(before["state"], "open");
  EXPECT_EQ(before["entity_state"], "pending");
  EXPECT_EQ(after["state"], "resolved");
  EXPECT_EQ(after["entity_state"], "completed");

  // An entity without a row is created.
  auto fresh = record(finding_of(DifferenceKind::kStateMismatch, "contract-new\ncompleted"));
  auto set = act_of(fresh.id, DifferenceAction::kCorrectState);
  InboxEntity created;
  created.state = "completed";
  created.terminal = true;
  set.entity = created;
  ASSERT_TRUE(store_->reconcile_act(set).has_value());
  EXPECT_EQ(store_->inbox_entity(kSource, "contract-new")->state, "completed");
  EXPECT_EQ(actions(fresh.id).at(0).before, "absent");
}

TEST_P(ReconcileTest, TheAuditEntryIsAppendedWithTheAction) {
  auto d = manual("evt-a");
  clock_.advance(10);
  auto a = act_of(d.id, DifferenceAction::kRepair);
  a.audit = audit_entry("reconcile.resolve", d.id, "customer asked");
  a.audit->target_type = "reconcile_difference";
  ASSERT_TRUE(store_->reconcile_act(a).has_value());
  auto log = audit_of(d.id);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].actor, "ops@example");
  EXPECT_EQ(log[0].action, "reconcile.resolve");
  EXPECT_EQ(log[0].reason, "customer asked");
  EXPECT_EQ(log[0].at, clock_.now_ms());
  auto before = nlohmann::json::parse(log[0].before.value_or("null"));
  auto after = nlohmann::json::parse(log[0].after.value_or("null"));
  EXPECT_EQ(before["id"], d.id);
  EXPECT_EQ(before["kind"], "missing");
  EXPECT_EQ(before["subject"], "evt-a");
  EXPECT_EQ(before["state"], "open");
  EXPECT_EQ(after["state"], "repaired");
  EXPECT_FALSE(before.contains("entity_state"));

  // Given before/after are kept as they are.
  auto other = manual("evt-b");
  auto b = act_of(other.id, DifferenceAction::kIgnore);
  b.audit = audit_entry("reconcile.resolve", other.id);
  b.audit->before = R"({"mine":1})";
  b.audit->after = R"({"mine":2})";
  ASSERT_TRUE(store_->reconcile_act(b).has_value());
  auto kept = audit_of(other.id);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].before, R"({"mine":1})");
  EXPECT_EQ(kept[0].after, R"({"mine":2})");
}

TEST_P(ReconcileTest, ReleaseForwardsAParkedEventWithTheMissingDependencies) {
  ASSERT_TRUE(store_->inbox_insert(event_of("dep-2")).has_value());
  forward("dep-2", InboxStatus::kProcessed);
  auto parked = timed_out("child", {"dep-1", "dep-2", "dep-3"});
  EXPECT_EQ(parked.status, InboxStatus::kParked);
  auto due = store_->reconcile_timed_out_parked(kSource, 10).value();
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].id, parked.id);

  auto d = record(finding_of(DifferenceKind::kParkedTimeout, "child"));
  clock_.advance(500);
  auto released = store_->reconcile_act(act_of(d.id, DifferenceAction::kRelease, "forward it"));
  ASSERT_TRUE(released.has_value()) << released.error().message;
  EXPECT_EQ(released->state, DifferenceState::kOpen);  // still open for a person
  auto ev = store_->inbox_get(parked.id).value();
  EXPECT_EQ(ev.status, InboxStatus::kReceived);
  EXPECT_EQ(ev.next_attempt_at, clock_.now_ms());
  EXPECT_EQ(ev.headers.at("hookd-dependency-missing"), "dep-1,dep-3");
  EXPECT_EQ(ev.headers.at("webhook-id"), "child");  // the others kept
  EXPECT_EQ(ev.payload, parked.payload);
  auto history = store_->inbox_history(ev.id).value();
  ASSERT_FALSE(history.empty());
  EXPECT_EQ(history.back().from, InboxStatus::kParked);
  EXPECT_EQ(history.back().to, InboxStatus::kReceived);
  EXPECT_NE(history.back().note.find(d.id), std::string::npos) << history.back().note;
  EXPECT_NE(history.back().note.find("waived"), std::string::npos) << history.back().note;
  auto acts = actions(d.id);
  ASSERT_EQ(acts.size(), 1u);
  EXPECT_EQ(acts[0].action, DifferenceAction::kRelease);
  EXPECT_EQ(acts[0].reason, "forward it");
  EXPECT_TRUE(store_->reconcile_timed_out_parked(kSource, 10)->empty());

  // It is due now: the next claim takes it.
  InboxClaimRequest req;
  req.lease_owner = "fw";
  auto claimed = store_->inbox_claim(req).value();
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].id, parked.id);

  // Not parked any more: nothing to release.
  auto again = store_->reconcile_act(act_of(d.id, DifferenceAction::kRelease));
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, ErrorCode::kConflict);
  EXPECT_EQ(actions(d.id).size(), 1u);
}

TEST_P(ReconcileTest, RepairOfAParkedTimeoutReleasesAndMarksItRepaired) {
  auto parked = timed_out("orphan", {"never"});
  auto d = record(finding_of(DifferenceKind::kParkedTimeout, "orphan"));
  auto a = act_of(d.id, DifferenceAction::kRepair);
  a.audit = audit_entry("reconcile.resolve");
  auto r = store_->reconcile_act(a);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->state, DifferenceState::kRepaired);
  auto ev = store_->inbox_get(parked.id).value();
  EXPECT_EQ(ev.status, InboxStatus::kReceived);
  EXPECT_EQ(ev.headers.at("hookd-dependency-missing"), "never");
  EXPECT_EQ(audit_of(d.id).size(), 1u);
  EXPECT_EQ(inbox().size(), 1u);  // released, nothing inserted
}

// ---- findings outside pages ----

TEST_P(ReconcileTest, FindingsAreRecordedOnceAndRepairedWhenAsked) {
  auto start = begin();
  auto stuck = finding_of(DifferenceKind::kStuck, "contract-1");
  stuck.run_id = start.run.id;
  auto mismatch = finding_of(DifferenceKind::kStateMismatch, "contract-2\ncompleted");
  mismatch.run_id = start.run.id;
  InboxEvent synthesized = event_of("synth-contract-2-completed");
  synthesized.entity_key = "contract-2";
  mismatch.repair_event = synthesized;
  std::vector<DifferenceFinding> findings(3);
  findings[0].difference = stuck;
  findings[1].difference = mismatch;
  findings[1].repair = true;
  findings[2].difference = stuck;  // found twice in one call
  auto r = store_->reconcile_record(findings);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ(r->at(0).kind, DifferenceKind::kStuck);
  EXPECT_EQ(r->at(0).state, DifferenceState::kOpen);
  EXPECT_EQ(r->at(1).kind, DifferenceKind::kStateMismatch);
  EXPECT_EQ(r->at(1).state, DifferenceState::kRepaired);
  EXPECT_EQ(get(r->at(1).id).remote_state, "completed");
  EXPECT_EQ(get(r->at(1).id).entity_key, "contract-2");
  auto ev = store_->inbox_find(kSource, "synth-contract-2-completed");
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(store_->inbox_history(ev->id)->at(0).note, "reconciled: " + r->at(1).id);
  EXPECT_EQ(actions(r->at(1).id).at(0).by, "auto");
  auto run = store_->reconcile_get_run(start.run.id).value();
  EXPECT_EQ(run.differences_found, 2);
  EXPECT_EQ(run.repaired, 1);

  // A second run finds the same: nothing new. Another remote state is another difference.
  auto again = store_->reconcile_record(findings);
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(again->empty());
  EXPECT_EQ(inbox().size(), 1u);
  auto other = finding_of(DifferenceKind::kStateMismatch, "contract-2\ncancelled");
  EXPECT_EQ(record(other).subject, "contract-2\ncancelled");
  EXPECT_EQ(all_differences().size(), 3u);
}

// ---- reads ----

TEST_P(ReconcileTest, ListsFilterAndPageNewestFirstWithoutGapOrDuplicate) {
  std::vector<std::string> ids;  // in creation order
  for (int i = 0; i < 7; ++i) {
    auto d = finding_of(i % 2 == 0 ? DifferenceKind::kStuck : DifferenceKind::kStateMismatch,
                        "contract-" + std::to_string(i));
    if (i == 5) d.source = "github";
    ids.push_back(record(d).id);
    clock_.advance(1);
  }
  ASSERT_TRUE(store_->reconcile_act(act_of(ids[2], DifferenceAction::kIgnore)).has_value());

  std::vector<std::string> seen;
  PageRequest req;
  req.limit = 2;
  req.descending = true;
  for (int guard = 0; guard < 10; ++guard) {
    auto page = store_->reconcile_list_differences(DifferenceFilter{}, req);
    ASSERT_TRUE(page.has_value());
    EXPECT_LE(page->data.size(), 2u);
    for (const auto& d : page->data) seen.push_back(d.id);
    if (page->done) break;
    req.iterator = page->iterator;
  }
  EXPECT_EQ(seen, std::vector<std::string>(ids.rbegin(), ids.rend()));

  DifferenceFilter by_source;
  by_source.source = "github";
  ASSERT_EQ(all_differences(by_source).size(), 1u);
  EXPECT_EQ(all_differences(by_source)[0].id, ids[5]);
  DifferenceFilter resolved;
  resolved.state = DifferenceState::kResolved;
  ASSERT_EQ(all_differences(resolved).size(), 1u);
  EXPECT_EQ(all_differences(resolved)[0].id, ids[2]);
  DifferenceFilter open_stuck;
  open_stuck.state = DifferenceState::kOpen;
  open_stuck.kind = DifferenceKind::kStuck;
  open_stuck.source = kSource;
  std::set<std::string> stuck_ids;
  for (const auto& d : all_differences(open_stuck)) stuck_ids.insert(d.id);
  EXPECT_EQ(stuck_ids, (std::set<std::string>{ids[0], ids[4], ids[6]}));
}

TEST_P(ReconcileTest, RunsListNewestFirstPerSource) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    auto start = begin();
    ids.push_back(start.run.id);
    ASSERT_TRUE(store_->reconcile_finish(start.run.id, kReconcileOwnerA, std::nullopt).has_value());
    clock_.advance(1);
  }
  ASSERT_TRUE(
      store_->reconcile_begin("github", kReconcileOwnerA, kReconcileLease, "cli").has_value());
  std::vector<std::string> seen;
  PageRequest req;
  req.limit = 2;
  req.descending = true;
  for (int guard = 0; guard < 10; ++guard) {
    auto page = store_->reconcile_list_runs(kSource, req);
    ASSERT_TRUE(page.has_value());
    for (const auto& r : page->data) seen.push_back(r.id);
    if (page->done) break;
    req.iterator = page->iterator;
  }
  EXPECT_EQ(seen, std::vector<std::string>(ids.rbegin(), ids.rend()));
  EXPECT_EQ(store_->reconcile_list_runs(std::nullopt, PageRequest{})->data.size(), 6u);
}

TEST_P(ReconcileTest, StatsCountPerSourceKindAndState) {
  const std::int64_t first = clock_.now_ms();
  record(finding_of(DifferenceKind::kStuck, "contract-1"));
  clock_.advance(10);
  auto second = record(finding_of(DifferenceKind::kStuck, "contract-2"));
  record(finding_of(DifferenceKind::kParkedTimeout, "evt-1"));
  auto gh = finding_of(DifferenceKind::kStuck, "contract-1");
  gh.source = "github";
  record(gh);
  clock_.advance(10);
  ASSERT_TRUE(store_->reconcile_act(act_of(second.id, DifferenceAction::kIgnore)).has_value());
  auto stats = store_->reconcile_stats();
  ASSERT_TRUE(stats.has_value());
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> got;
  for (const auto& s : *stats) {
    got[s.source + "/" + std::string(to_string(s.kind)) + "/" + std::string(to_string(s.state))] = {
        s.count, s.oldest_found_at};
  }
  using P = std::pair<std::int64_t, std::int64_t>;
  EXPECT_EQ(got, (std::map<std::string, P>{{"esign/stuck/open", P{1, first}},
                                           {"esign/stuck/resolved", P{1, first + 10}},
                                           {"esign/parked_timeout/open", P{1, first + 10}},
                                           {"github/stuck/open", P{1, first + 10}}}));
}

TEST_P(ReconcileTest, StuckEntitiesAreNonTerminalStatesOlderThanTheBound) {
  auto set_entity = [&](const std::string& source, const std::string& key,
                        std::optional<std::string> state, bool terminal) {
    auto d =
        finding_of(DifferenceKind::kStuck, key + "-" + source + "-" + std::to_string(terminal));
    d.source = source;
    d.entity_key = key;
    auto recorded = record(d);
    auto a = act_of(recorded.id, DifferenceAction::kCorrectState);
    InboxEntity e;
    e.state = std::move(state);
    e.terminal = terminal;
    a.entity = e;
    ASSERT_TRUE(store_->reconcile_act(a).has_value());
  };
  const std::int64_t t0 = clock_.now_ms();
  set_entity(kSource, "old-pending", "pending", false);
  clock_.advance(10);
  set_entity(kSource, "done", "completed", true);
  set_entity(kSource, "no-state", std::nullopt, false);
  set_entity("github", "other-source", "pending", false);
  set_entity(kSource, "newer-pending", "sent", false);
  clock_.advance(10);
  set_entity(kSource, "fresh", "pending", false);

  auto stuck = store_->reconcile_stuck_entities(kSource, t0 + 20, 10).value();
  std::vector<std::string> keys;
  for (const auto& e : stuck) keys.push_back(e.entity_key);
  EXPECT_EQ(keys, (std::vector<std::string>{"old-pending", "newer-pending"}));  // oldest first
  EXPECT_EQ(stuck[0].updated_at, t0);
  EXPECT_EQ(store_->reconcile_stuck_entities(kSource, t0 + 20, 1)->size(), 1u);
  EXPECT_TRUE(store_->reconcile_stuck_entities(kSource, t0, 10)->empty());  // strictly before
}

TEST_P(ReconcileTest, TimedOutParkedAreParkedEventsFlaggedPastTheirTimeout) {
  auto first = timed_out("p1", {"missing-1"});
  clock_.advance(1);
  ASSERT_TRUE(store_->inbox_insert(event_of("waiting")).has_value());
  auto waiting = forward("waiting", InboxStatus::kParked);  // parked, not yet timed out
  clock_.advance(1);
  auto second = timed_out("p2", {"missing-2"});
  auto other = event_of("gh-1");
  other.source = "github";
  ASSERT_TRUE(store_->inbox_insert(other).has_value());
  auto due = store_->reconcile_timed_out_parked(kSource, 10).value();
  ASSERT_EQ(due.size(), 2u);
  EXPECT_EQ(due[0].id, first.id);  // oldest first
  EXPECT_EQ(due[1].id, second.id);
  EXPECT_EQ(due[0].last_error, "park_timeout");
  EXPECT_EQ(store_->reconcile_timed_out_parked(kSource, 1)->size(), 1u);
  EXPECT_TRUE(store_->reconcile_timed_out_parked("github", 10)->empty());
  EXPECT_NE(waiting.id, "");
}

// The forwarder's parked_timeout difference (A21) rides on the status change: recorded in
// its transaction, once however often the event is re-parked, on the single, batch and round
// paths; an update that loses its lease records nothing.
TEST_P(ReconcileTest, AStatusUpdateRecordsItsDifferenceOnceOnEveryPath) {
  InboxEvent e = event_of("parked-1");
  e.entity_key.reset();
  e.depends_on = {"never"};
  ASSERT_TRUE(store_->inbox_insert(e).has_value());
  auto flag = [](InboxStatusUpdate& u) {
    u.error = "park_timeout";
    u.difference = finding_of(DifferenceKind::kParkedTimeout, "parked-1");
  };
  for (int period = 0; period < 3; ++period) {
    clock_.advance(1'000'001);
    forward("parked-1", InboxStatus::kParked, flag);
  }
  // The batch and the round paths, with the same difference again.
  for (int path = 0; path < 2; ++path) {
    clock_.advance(1'000'001);
    InboxClaimRequest req;
    req.lease_owner = "fw";
    auto claimed = store_->inbox_claim(req).value_or(std::vector<InboxEvent>{});
    ASSERT_EQ(claimed.size(), 1u);
    InboxStatusUpdate u;
    u.id = claimed[0].id;
    u.lease_owner = "fw";
    u.to = InboxStatus::kParked;
    u.note = "parked again";
    u.next_attempt_at = clock_.now_ms() + 1'000'000;
    flag(u);
    if (path == 0) {
      auto r = store_->inbox_update_status_batch({u});
      ASSERT_TRUE(r.has_value() && r->at(0).has_value());
    } else {
      InboxRound round;
      round.updates = {u};
      round.lease_owner = "fw";
      auto r = store_->inbox_round(round);
      ASSERT_TRUE(r.has_value() && r->updated.at(0).has_value());
    }
  }
  // A lost lease: the update fails and its (new) difference is not recorded.
  InboxStatusUpdate lost;
  lost.id = inbox_find_id("parked-1");
  lost.lease_owner = "not-the-holder";
  lost.to = InboxStatus::kParked;
  lost.difference = finding_of(DifferenceKind::kParkedTimeout, "someone-else");
  EXPECT_FALSE(store_->inbox_update_status(lost).has_value());
  DifferenceFilter parked;
  parked.kind = DifferenceKind::kParkedTimeout;
  const auto found = all_differences(parked);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].subject, "parked-1");
  EXPECT_EQ(found[0].state, DifferenceState::kOpen);
  EXPECT_EQ(found[0].run_id, "");
  EXPECT_EQ(found[0].local_state, "parked");
}

INSTANTIATE_TEST_SUITE_P(Store, ReconcileTest, ::testing::ValuesIn(all_factories()), factory_name);

}  // namespace
}  // namespace hookd::store::testing
