// Contract: retention (store/retention.hpp) — settled rows go once past their period, in
// batches that resume where the last one stopped; nothing unsettled (pending, delivering,
// retrying, in flight, unknown, an open inbox event, one with an open difference) ever goes,
// whatever the clock says; and a purge racing a DLQ replay never deletes what was replayed.
#include <thread>

#include "store/retention_purger.hpp"
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

constexpr Millis kRetentionDay = 86'400'000;

InboxEvent inbound(const std::string& event_id) {
  InboxEvent e;
  e.source = "esign";
  e.event_id = event_id;
  e.payload = R"({"id":")" + event_id + "\"}";
  return e;
}

class RetentionContract : public StoreContract {
 protected:
  void SetUp() override {
    StoreContract::SetUp();
    app_ = make_app();
    ep_ = make_endpoint(app_.id);
  }

  // One message to ep_, claimed and reported with `next` (or left pending when nullopt).
  std::string message(std::optional<AttemptReport::Next> next) {
    auto out = publish(app_.id, "contract.signed");
    if (next) {
      int reported = 0;
      for (const auto& d : claim("w1")) {
        if (d.msg_id != out.message.id) continue;
        report(d, *next, clock_.now_ms() + kRetentionDay);
        ++reported;
      }
      EXPECT_EQ(reported, 1);
      EXPECT_TRUE(store_->release_leases("w1").has_value());  // the others stay pending
    }
    return out.message.id;
  }

  bool exists(const std::string& msg_id) {
    return store_->get_message(app_.id, msg_id).has_value();
  }

  // Every batch of one kind as the purger runs them; returns what was deleted.
  int purge_all(PurgeRequest r, int* batches = nullptr) {
    int deleted = 0;
    for (int i = 0; i < 10'000; ++i) {
      auto b = store_->purge_batch(r);
      EXPECT_TRUE(b.has_value()) << b.error().message;
      if (!b) return deleted;
      deleted += b->deleted;
      if (batches) ++*batches;
      if (b->done) return deleted;
      r.after_id = b->last_id;
    }
    ADD_FAILURE() << "the pass never ended";
    return deleted;
  }

  PurgeRequest messages_older(Millis delivered, std::optional<Millis> dead = {}, int limit = 500) {
    PurgeRequest r;
    r.kind = RetentionKind::kMessages;
    r.settled_before = clock_.now_ms() - delivered;
    if (dead) r.dead_before = clock_.now_ms() - *dead;
    r.limit = limit;
    return r;
  }

  std::size_t attempts_of(const std::string& msg_id) {
    AttemptFilter f;
    f.msg_id = msg_id;
    PageRequest all;
    all.limit = PageRequest::kMaxLimit;
    auto page = store_->list_attempts(f, all);
    EXPECT_TRUE(page.has_value());
    return page ? page->data.size() : 0;
  }

  // Inserts `event_id` and, unless `to` is nullopt, moves it there through a claim.
  std::string event(const std::string& event_id, std::optional<InboxStatus> to) {
    auto ins = store_->inbox_insert(inbound(event_id));
    EXPECT_TRUE(ins.has_value());
    if (to) {
      auto claimed = store_->inbox_claim(InboxClaimRequest{"f1", 30'000, 100, std::nullopt});
      EXPECT_TRUE(claimed.has_value());
      for (const auto& e : claimed.value_or(std::vector<InboxEvent>{})) {
        if (e.event_id != event_id) continue;
        InboxStatusUpdate u;
        u.id = e.id;
        u.lease_owner = "f1";
        u.to = *to;
        u.next_attempt_at = clock_.now_ms() + kRetentionDay;
        EXPECT_TRUE(store_->inbox_update_status(u).has_value());
      }
    }
    return ins ? ins->id : "";
  }
  PurgeRequest inbox_older(std::optional<Millis> final_age, std::optional<Millis> dead_age) {
    PurgeRequest r;
    r.kind = RetentionKind::kInbox;
    if (final_age) r.settled_before = clock_.now_ms() - *final_age;
    if (dead_age) r.dead_before = clock_.now_ms() - *dead_age;
    r.limit = 3;
    return r;
  }
  bool kept(const std::string& event_id) {
    return store_->inbox_find("esign", event_id).has_value();
  }

  Application app_;
  Endpoint ep_;
};

TEST_P(RetentionContract, ADeliveredMessageGoesWithItsDeliveriesAndAttempts) {  // A43
  const auto delivered = message(AttemptReport::Next::kDelivered);
  ASSERT_EQ(attempts_of(delivered), 1u);
  clock_.advance(30 * kRetentionDay);
  EXPECT_EQ(purge_all(messages_older(30 * kRetentionDay)), 0);  // exactly 30 days: not yet
  clock_.advance(1);
  EXPECT_EQ(purge_all(messages_older(30 * kRetentionDay)), 1);
  EXPECT_FALSE(exists(delivered));
  EXPECT_TRUE(store_->list_deliveries_for_message(delivered)->empty());
  EXPECT_EQ(attempts_of(delivered), 0u);
  EXPECT_EQ(purge_all(messages_older(30 * kRetentionDay)), 0);  // a second pass finds nothing
}

TEST_P(RetentionContract, NothingUnsettledIsEverPurged) {  // A43
  const auto pending = message(std::nullopt);
  const auto retrying = message(AttemptReport::Next::kRetry);
  publish(app_.id, "contract.signed");
  ASSERT_EQ(claim("w2", 1, 10 * 365 * kRetentionDay).size(),
            1u);  // in flight, leased for ten years
  const auto half = publish(app_.id, "contract.signed").message.id;
  auto second_ep = make_endpoint(app_.id);
  (void)second_ep;
  const auto mixed = publish(app_.id, "contract.signed").message.id;  // to both endpoints
  // Deliver one of `mixed`'s two deliveries; the other stays pending.
  for (const auto& d : claim("w3")) {
    if (d.msg_id == mixed && d.endpoint_id == ep_.id) report(d, AttemptReport::Next::kDelivered);
  }
  (void)half;
  clock_.advance(1000 * kRetentionDay);
  EXPECT_EQ(purge_all(messages_older(30 * kRetentionDay, 90 * kRetentionDay, 2)), 0);
  EXPECT_TRUE(exists(pending));
  EXPECT_TRUE(exists(retrying));
  EXPECT_TRUE(exists(mixed));
  EXPECT_EQ(store_->count_deliveries(DeliveryStatus::kDelivering).value() +
                store_->count_deliveries(DeliveryStatus::kPending).value(),
            5);
}

TEST_P(RetentionContract, DeadLettersStayForTheirOwnPeriod) {  // A43
  const auto dead = message(AttemptReport::Next::kDead);
  const auto delivered = message(AttemptReport::Next::kDelivered);
  clock_.advance(31 * kRetentionDay);
  EXPECT_EQ(purge_all(messages_older(30 * kRetentionDay, 90 * kRetentionDay)), 1);
  EXPECT_TRUE(exists(dead));
  EXPECT_FALSE(exists(delivered));
  EXPECT_EQ(purge_all(messages_older(30 * kRetentionDay)), 0);  // no dead period: dead letters kept
  clock_.advance(60 * kRetentionDay);
  EXPECT_EQ(purge_all(messages_older(30 * kRetentionDay, 90 * kRetentionDay)), 1);
  EXPECT_FALSE(exists(dead));
}

TEST_P(RetentionContract, ADiscardedDeadLetterCountsAsSettled) {
  const auto dead = message(AttemptReport::Next::kDead);
  auto listed = store_->list_dead(DeadLetterFilter{}, PageRequest{});
  ASSERT_EQ(listed->data.size(), 1u);
  ASSERT_EQ(store_->discard_dead({listed->data[0].id}, audit_entry("dlq.discard")).value(), 1);
  clock_.advance(31 * kRetentionDay);
  EXPECT_EQ(purge_all(messages_older(30 * kRetentionDay, 90 * kRetentionDay)), 1);
  EXPECT_FALSE(exists(dead));
}

TEST_P(RetentionContract, ARecentChangeKeepsAnOldMessage) {
  const auto msg = message(AttemptReport::Next::kDelivered);
  clock_.advance(29 * kRetentionDay);
  ASSERT_TRUE(store_->resend(msg, ep_.id, std::nullopt).has_value());  // a new delivery now
  for (const auto& d : claim("w1")) report(d, AttemptReport::Next::kDelivered);
  clock_.advance(2 * kRetentionDay);
  EXPECT_EQ(purge_all(messages_older(30 * kRetentionDay)), 0);  // its last delivery is 2 days old
  EXPECT_TRUE(exists(msg));
  clock_.advance(29 * kRetentionDay);
  EXPECT_EQ(purge_all(messages_older(30 * kRetentionDay)), 1);
}

TEST_P(RetentionContract, BatchesResumePastRowsTheyKeepAndStopAtYoungOnes) {
  std::vector<std::string> kept;
  for (int i = 0; i < 23; ++i) {
    if (i % 5 == 0)
      kept.push_back(message(std::nullopt));  // old but pending
    else
      message(AttemptReport::Next::kDelivered);
  }
  clock_.advance(31 * kRetentionDay);
  const auto young = message(AttemptReport::Next::kDelivered);
  message(AttemptReport::Next::kDelivered);
  int batches = 0;
  EXPECT_EQ(purge_all(messages_older(30 * kRetentionDay, std::nullopt, 4), &batches), 23 - 5);
  EXPECT_EQ(batches, 6);  // 23 old rows, 4 per batch; the sixth reaches the young ones
  for (const auto& id : kept) EXPECT_TRUE(exists(id)) << id;
  EXPECT_TRUE(exists(young));
}

TEST_P(RetentionContract, APurgeRacingDlqReplaysNeverDeletesWhatWasReplayed) {  // A43
  std::vector<std::string> msgs;
  for (int i = 0; i < 60; ++i) msgs.push_back(message(AttemptReport::Next::kDead));
  PageRequest all;
  all.limit = PageRequest::kMaxLimit;
  auto dead = store_->list_dead(DeadLetterFilter{}, all).value().data;
  ASSERT_EQ(dead.size(), 60u);
  clock_.advance(91 * kRetentionDay);
  std::vector<std::string> replayed;
  std::thread replayer([&] {
    for (std::size_t i = 0; i < dead.size(); i += 2) {  // every other one, one at a time
      auto r = store_->replay_dead({dead[i].id}, std::nullopt, audit_entry("dlq.replay"));
      if (r && *r == 1) replayed.push_back(dead[i].msg_id);
    }
  });
  const int purged = purge_all(messages_older(30 * kRetentionDay, 90 * kRetentionDay, 3));
  replayer.join();
  for (const auto& id : replayed) EXPECT_TRUE(exists(id)) << id << " was replayed, then purged";
  EXPECT_EQ(purged + static_cast<int>(replayed.size()), 60);
  EXPECT_EQ(store_->count_deliveries(DeliveryStatus::kPending).value(),
            static_cast<std::int64_t>(replayed.size()));
}

TEST_P(RetentionContract, FinalEventsGoOpenOnesNever) {  // A43
  const std::string processed = event("processed", InboxStatus::kProcessed);
  event("stale", InboxStatus::kStale);
  event("superseded", InboxStatus::kSuperseded);
  event("duplicate", InboxStatus::kDuplicate);
  event("received", std::nullopt);
  event("retry", InboxStatus::kRetry);
  event("parked", InboxStatus::kParked);
  event("dead", InboxStatus::kDead);
  store_->inbox_insert(inbound("processing"));
  ASSERT_EQ(
      store_->inbox_claim(InboxClaimRequest{"f2", 100 * 365 * kRetentionDay, 100, std::nullopt})
          ->size(),
      1u);  // "processing" (the others are not due)
  clock_.advance(31 * kRetentionDay);
  EXPECT_EQ(purge_all(inbox_older(30 * kRetentionDay, 90 * kRetentionDay)), 4);
  for (const auto* id : {"processed", "stale", "superseded", "duplicate"}) EXPECT_FALSE(kept(id));
  EXPECT_EQ(store_->inbox_history(processed)->size(), 0u);
  clock_.advance(1000 * kRetentionDay);
  EXPECT_EQ(purge_all(inbox_older(30 * kRetentionDay, 90 * kRetentionDay)), 1);  // the dead one
  for (const auto* id : {"received", "retry", "parked", "processing"}) EXPECT_TRUE(kept(id)) << id;
  EXPECT_FALSE(kept("dead"));
}

TEST_P(RetentionContract, AnOpenDifferenceKeepsItsDeadEvent) {  // A43
  event("dead-1", InboxStatus::kDead);
  event("dead-2", InboxStatus::kDead);
  Difference d;
  d.source = "esign";
  d.kind = DifferenceKind::kParkedTimeout;
  d.subject = "dead-1";
  d.event_id = "dead-1";
  d.detail = "test";
  auto recorded = store_->reconcile_record({DifferenceFinding{d, false}});
  ASSERT_TRUE(recorded.has_value()) << recorded.error().message;
  ASSERT_EQ(recorded->size(), 1u);
  clock_.advance(91 * kRetentionDay);
  EXPECT_EQ(purge_all(inbox_older(std::nullopt, 90 * kRetentionDay)), 1);
  EXPECT_TRUE(kept("dead-1"));
  DifferenceAct act;
  act.difference_id = recorded->at(0).id;
  act.action = DifferenceAction::kIgnore;
  act.by = "ops";
  act.reason = "checked by hand";
  ASSERT_TRUE(store_->reconcile_act(act).has_value());
  EXPECT_EQ(purge_all(inbox_older(std::nullopt, 90 * kRetentionDay)), 1);
  EXPECT_FALSE(kept("dead-1"));
}

TEST_P(RetentionContract, AReconciledSourceKeepsWhatItsNextRunMayRead) {  // A43
  const Millis received = clock_.now_ms();
  event("seen", InboxStatus::kProcessed);
  clock_.advance(31 * kRetentionDay);
  auto start = store_->reconcile_begin("esign", "rec-1", 60'000, "schedule");
  ASSERT_TRUE(start.has_value()) << start.error().message;
  EXPECT_EQ(purge_all(inbox_older(30 * kRetentionDay, 90 * kRetentionDay)),
            0);  // no watermark yet: kept
  auto advance_watermark = [&](Millis to) {
    ReconcilePage page;
    page.source = "esign";
    page.run_id = start->run.id;
    page.lease_owner = "rec-1";
    page.watermark_at = to;
    ASSERT_TRUE(store_->reconcile_apply_page(page).has_value());
  };
  advance_watermark(received + kRetentionDay);  // the run re-reads up to a day behind its watermark
  EXPECT_EQ(purge_all(inbox_older(30 * kRetentionDay, 90 * kRetentionDay)), 0);
  EXPECT_TRUE(kept("seen"));
  advance_watermark(received + kRetentionDay + 1);
  EXPECT_EQ(purge_all(inbox_older(30 * kRetentionDay, 90 * kRetentionDay)), 1);
  EXPECT_FALSE(kept("seen"));
}

TEST_P(RetentionContract, WithoutAFinalPeriodOnlyDeadEventsGo) {
  event("processed", InboxStatus::kProcessed);
  event("dead", InboxStatus::kDead);
  clock_.advance(400 * kRetentionDay);
  EXPECT_EQ(purge_all(inbox_older(std::nullopt, 90 * kRetentionDay)), 1);
  EXPECT_TRUE(kept("processed"));
  EXPECT_EQ(purge_all(inbox_older(30 * kRetentionDay, std::nullopt)), 1);
  EXPECT_FALSE(kept("processed"));
}

TEST_P(RetentionContract, AuditEntriesGoAfterTheirPeriod) {
  store_->append_audit(audit_entry("old.thing", "t1"));
  clock_.advance(200 * kRetentionDay);
  store_->append_audit(audit_entry("young.thing", "t2"));
  clock_.advance(200 * kRetentionDay);
  PurgeRequest r;
  r.kind = RetentionKind::kAudit;
  r.settled_before = clock_.now_ms() - 365 * kRetentionDay;
  EXPECT_EQ(purge_all(r), 1);
  PageRequest all;
  all.limit = PageRequest::kMaxLimit;
  auto log = store_->list_audit(AuditFilter{}, all).value().data;
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].action, "young.thing");
}

TEST_P(RetentionContract, OnlyCompletedExpiredIdempotencyKeysGo) {
  store_->idem_begin("s", "completed-old", "fp", 1000);
  ASSERT_TRUE(store_->idem_finish("s", "completed-old", 202, {}, "{}"));
  store_->idem_begin("s", "in-flight-old", "fp", 1000);
  store_->idem_begin("s", "unknown-old", "fp", 1000);
  ASSERT_TRUE(store_->idem_mark_unknown("s", "unknown-old"));
  store_->idem_begin("s", "completed-young", "fp", 10 * kRetentionDay);
  ASSERT_TRUE(store_->idem_finish("s", "completed-young", 202, {}, "{}"));
  clock_.advance(kRetentionDay);
  PurgeRequest r;
  r.kind = RetentionKind::kIdempotencyKeys;
  r.settled_before = clock_.now_ms();
  r.limit = 1;
  EXPECT_EQ(purge_all(r), 1);
  EXPECT_EQ(store_->idem_get("s", "completed-old").error().code, ErrorCode::kNotFound);
  for (const auto* k : {"in-flight-old", "unknown-old", "completed-young"}) {
    EXPECT_TRUE(store_->idem_get("s", k).has_value()) << k;
  }
}

TEST_P(RetentionContract, StatsCountRowsAndTheOldestPerKind) {
  const Millis first = clock_.now_ms();
  message(AttemptReport::Next::kDelivered);
  clock_.advance(5000);
  message(std::nullopt);
  store_->inbox_insert(inbound("e1"));
  auto stats = store_->retention_stats();
  ASSERT_TRUE(stats.has_value()) << stats.error().message;
  ASSERT_EQ(stats->size(), std::size(kRetentionKinds));
  EXPECT_EQ(stats->at(0).kind, RetentionKind::kMessages);
  EXPECT_EQ(stats->at(0).rows, 2);
  EXPECT_EQ(stats->at(0).oldest_at, first);
  EXPECT_EQ(stats->at(1).rows, 1);
  EXPECT_EQ(stats->at(1).oldest_at, first + 5000);
  EXPECT_EQ(stats->at(4).rows, 0);
  EXPECT_FALSE(stats->at(4).oldest_at.has_value());
}

TEST_P(RetentionContract, ThePurgerPurgesEveryKindAndReportsIt) {
  message(AttemptReport::Next::kDelivered);
  message(AttemptReport::Next::kDead);
  event("p1", InboxStatus::kProcessed);
  store_->append_audit(audit_entry("old"));
  clock_.advance(400 * kRetentionDay);
  const auto young = message(AttemptReport::Next::kDelivered);
  PurgerOptions options;
  options.batch_size = 1;
  options.pause = std::chrono::milliseconds(0);
  std::vector<PassReport> reports;
  RetentionPurger purger(*store_, clock_, options,
                         [&](const PassReport& r) { reports.push_back(r); });
  auto report = purger.run_pass();
  EXPECT_FALSE(report.error.has_value()) << report.error->message;
  EXPECT_EQ(report.deleted[0], 2);  // messages
  EXPECT_EQ(report.deleted[1], 1);  // inbox
  EXPECT_GE(report.deleted[2], 1);  // audit (the DLQ's own entries may be among them)
  EXPECT_TRUE(exists(young));
  ASSERT_EQ(reports.size(), 1u);
  ASSERT_EQ(report.stats.size(), std::size(kRetentionKinds));
  EXPECT_EQ(report.stats[0].rows, 1);
  EXPECT_EQ(report.stats[1].rows, 0);
}

INSTANTIATE_TEST_SUITE_P(Store, RetentionContract, ::testing::ValuesIn(all_factories()),
                         factory_name);

}  // namespace
}  // namespace hookd::store::testing
