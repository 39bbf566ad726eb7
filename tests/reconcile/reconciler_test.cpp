// Reconciler: the feed walk against a scripted feed (a fake HttpSender) and a real SQLite
// store: missing items are recorded once and repaired through the inbox insert, items hookd
// has are no differences, repeated runs record nothing new, manual mode waits for a person,
// paging follows the cursor, a failing page closes the run with its error and the next run
// resumes from the stored cursor, one run at a time, resolve validation.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "env/system_env.hpp"
#include "reconcile/feed_page.hpp"
#include "reconcile/reconciler.hpp"
#include "store/id_generator.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::reconcile {
namespace {

const std::string kFeed = "http://127.0.0.1:9/feed";

// Answers GET <url> from a script; an unscripted URL answers 404. `hold` blocks every send
// until released (a run in progress).
class FakeFeed final : public net::HttpSender {
 public:
  void serve(const std::string& url, int status, std::string body) {
    std::lock_guard lock(mutex_);
    pages_[url] = {status, std::move(body)};
  }
  void fail_transport(const std::string& url) {
    std::lock_guard lock(mutex_);
    broken_[url] = true;
  }
  void silence(const std::string& url) {
    std::lock_guard lock(mutex_);
    silent_[url] = true;
  }
  void heal(const std::string& url) {
    std::lock_guard lock(mutex_);
    broken_.erase(url);
  }
  void hold(bool on) {
    std::lock_guard lock(mutex_);
    held_ = on;
    cv_.notify_all();
  }
  void wait_for_requests(int n) {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return static_cast<int>(requests_.size()) >= n; });
  }
  std::vector<net::OutboundRequest> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

  void send(net::OutboundRequest request, Done done) override {
    net::AttemptResult result;
    {
      std::unique_lock lock(mutex_);
      requests_.push_back(request);
      cv_.notify_all();
      cv_.wait(lock, [&] { return !held_; });
      if (silent_.contains(request.url)) return;  // never answers
      if (broken_.contains(request.url)) {
        result.error = net::TransportError::kTimeout;
        result.error_detail = "scripted timeout";
      } else if (auto it = pages_.find(request.url); it != pages_.end()) {
        result.status = it->second.first;
        result.body = it->second.second;
      } else if (auto at = request.url.find("iterator=c"); endless_ && at != std::string::npos) {
        const int n = std::stoi(request.url.substr(at + 10));
        result.status = 200;
        result.body = endless_page(n);
      } else {
        result.status = 404;
      }
    }
    done(std::move(result));
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, std::pair<int, std::string>> pages_;
  std::map<std::string, bool> broken_;
  std::map<std::string, bool> silent_;
  std::vector<net::OutboundRequest> requests_;
  bool held_ = false;

 public:
  // Unscripted "?iterator=c<N>" pages answer one item and point at c<N+1>, never done.
  std::string (*endless_page)(int) = nullptr;
  bool endless_ = false;
};

std::string item(const std::string& id, const std::string& state = "pending") {
  return R"({"id":")" + id + R"(","timestamp":"2024-05-01T10:00:00Z","payload":{"id":")" + id +
         R"(","entity":"ent-)" + id + R"(","state":")" + state + R"("}})";
}

std::string page(const std::vector<std::string>& ids, const std::string& next, bool done) {
  std::string items;
  for (const auto& id : ids) {
    if (!items.empty()) items.push_back(',');
    items.append(item(id));
  }
  std::string out = R"({"data":[)" + items + "]";
  if (!next.empty()) out += R"(,"iterator":")" + next + "\"";
  return out + R"(,"done":)" + (done ? "true" : "false") + "}";
}

class ReconcilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::sqlite::SqliteOptions o;
    o.path = ":memory:";
    o.readers = 1;
    o.checkpoint_interval = std::chrono::milliseconds(0);
    auto opened = store::sqlite::SqliteStore::open(o, clock_, ids_);
    ASSERT_TRUE(opened.has_value()) << opened.error().message;
    store_ = std::move(*opened);
    ASSERT_TRUE(store_->migrate().has_value());

    inbound::SourceSettings s;
    s.name = "esign";
    s.verification = inbound::Verification::kNone;
    s.event_id = "/id";
    s.entity_key = "/entity";
    s.state = "/state";
    s.terminal_states = {"completed", "voided"};
    s.forward.url = "http://127.0.0.1:9/app";
    s.forward.secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    auto source = inbound::Source::create(s);
    ASSERT_TRUE(source.has_value()) << source.error().message;
    source_ = std::make_shared<const inbound::Source>(std::move(*source));

    options_.interval = std::chrono::milliseconds(0);
    options_.feed_url = kFeed;
    options_.feed_token = "secret-token";
    options_.lease_owner = "node-a/reconcile";
    options_.page_timeout = std::chrono::milliseconds(2000);
  }

  std::unique_ptr<Reconciler> make() {
    return std::make_unique<Reconciler>(
        options_, ReconcilerDeps{*store_, *store_, feed_, clock_, source_, nullptr, nullptr});
  }

  std::vector<store::Difference> differences() {
    store::DifferenceFilter f;
    f.source = "esign";
    store::PageRequest p;
    p.limit = 100;
    auto page = store_->reconcile_list_differences(f, p);
    EXPECT_TRUE(page.has_value());
    return page ? page->data : std::vector<store::Difference>{};
  }

  // Entities ent-<id> in state "pending", known through a manual run of a feed of `ids` and a
  // person's correct_state on each recorded difference; options_ are left as they were.
  void entities_pending(const std::vector<std::string>& ids) {
    const auto repair = options_.repair;
    options_.repair = RepairMode::kManual;
    feed_.serve(kFeed, 200, page(ids, "", true));
    auto manual = make();
    ASSERT_TRUE(manual->run_once("api").has_value());
    for (const auto& d : differences()) {
      Resolution res;
      res.action = store::DifferenceAction::kCorrectState;
      res.state = "pending";
      res.audit.actor = "ops";
      ASSERT_TRUE(manual->resolve(d.id, res).has_value());
    }
    options_.repair = repair;
  }

  bool in_inbox(const std::string& event_id) {
    return store_->inbox_find("esign", event_id).has_value();
  }

  env::SystemClock clock_;
  env::SystemRandom random_;
  store::RandomIdGenerator ids_{clock_, random_};
  std::unique_ptr<store::sqlite::SqliteStore> store_;
  std::shared_ptr<const inbound::Source> source_;
  ReconcileOptions options_;
  FakeFeed feed_;
};

TEST_F(ReconcilerTest, MissingItemsAreRecordedAndInsertedOnceWithTheirNote) {
  feed_.serve(kFeed, 200, page({"e1", "e2"}, "", true));
  auto r = make();
  auto run = r->run_once("api");
  ASSERT_TRUE(run.has_value()) << run.error().message;
  EXPECT_FALSE(run->error.has_value()) << *run->error;
  EXPECT_TRUE(run->finished_at.has_value());
  EXPECT_EQ(run->items_read, 2);
  EXPECT_EQ(run->differences_found, 2);
  EXPECT_EQ(run->repaired, 2);

  auto found = differences();
  ASSERT_EQ(found.size(), 2u);
  for (const auto& d : found) {
    EXPECT_EQ(d.kind, store::DifferenceKind::kMissing);
    EXPECT_EQ(d.state, store::DifferenceState::kRepaired);
    EXPECT_EQ(d.local_state, "absent");
    EXPECT_EQ(d.evidence.request, "GET " + kFeed);
    EXPECT_EQ(d.evidence.status, 200);
    EXPECT_EQ(d.evidence.sha256.size(), 64u);
    EXPECT_EQ(d.evidence.request.find("secret-token"), std::string::npos);
    auto ev = store_->inbox_find("esign", *d.event_id);
    ASSERT_TRUE(ev.has_value());
    EXPECT_EQ(ev->entity_key, "ent-" + *d.event_id);
    // The item's body bytes as the feed had them (not re-serialised: keys keep their order).
    EXPECT_EQ(ev->payload, R"({"id":")" + *d.event_id + R"(","entity":"ent-)" + *d.event_id +
                               R"(","state":"pending"})");
    EXPECT_EQ(nlohmann::json::parse(ev->payload)["id"], *d.event_id);
    auto history = store_->inbox_history(ev->id);
    ASSERT_TRUE(history.has_value());
    ASSERT_FALSE(history->empty());
    EXPECT_EQ(history->front().note, "reconciled: " + d.id);
  }
  auto requests = feed_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  bool bearer = false;
  for (const auto& [name, value] : requests[0].headers) {
    bearer |= name == "Authorization" && value == "Bearer secret-token";
  }
  EXPECT_TRUE(bearer);
}

TEST_F(ReconcilerTest, AnInjectedBodyIsTheFeedsBytesNeverReserialised) {
  // Whitespace, key order, number spelling and escapes a parser would normalise.
  const std::string body =
      "{ \"state\" : \"pending\",\n  \"id\":\"e9\", \"entity\": \"ent-e9\", "
      "\"amount\": 1.50e+2, \"name\": \"caf\\u00e9 \\\"x\\\"\" }";
  feed_.serve(kFeed, 200,
              "{\"data\": [ {\"payload\" :" + body + " , \"id\": \"e9\"} ], \"done\": true}");
  auto run = make()->run_once("api");
  ASSERT_TRUE(run.has_value()) << run.error().message;
  EXPECT_EQ(run->repaired, 1);
  auto ev = store_->inbox_find("esign", "e9");
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->payload, body);
  EXPECT_EQ(ev->entity_key, "ent-e9");  // its fields were still read from the parsed body
}

TEST_F(ReconcilerTest, AnItemAlreadyInTheInboxIsNoDifference) {
  store::InboxEvent ev;
  ev.source = "esign";
  ev.event_id = "e1";
  ev.payload = "{}";
  ASSERT_TRUE(store_->inbox_insert(ev).has_value());
  feed_.serve(kFeed, 200, page({"e1"}, "", true));
  auto run = make()->run_once("api");
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->differences_found, 0);
  EXPECT_TRUE(differences().empty());
}

TEST_F(ReconcilerTest, RepeatedRunsRecordNothingNew) {
  feed_.serve(kFeed, 200, page({"e1", "e2", "e3"}, "", true));
  auto r = make();
  for (int i = 0; i < 3; ++i) {
    auto run = r->run_once("api");
    ASSERT_TRUE(run.has_value()) << run.error().message;
    EXPECT_EQ(run->differences_found, i == 0 ? 3 : 0);
  }
  EXPECT_EQ(differences().size(), 3u);
}

TEST_F(ReconcilerTest, ManualModeRecordsWithoutInsertingAndResolveRepairInserts) {
  options_.repair = RepairMode::kManual;
  feed_.serve(kFeed, 200, page({"e1"}, "", true));
  auto r = make();
  auto run = r->run_once("api");
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->repaired, 0);
  auto found = differences();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].state, store::DifferenceState::kOpen);
  EXPECT_FALSE(in_inbox("e1"));

  Resolution res;
  res.action = store::DifferenceAction::kRepair;
  res.reason = "checked with the provider";
  res.audit.actor = "ops-token";
  res.audit.action = "reconcile.resolve";
  res.audit.target_type = "reconcile_difference";
  res.audit.target_id = found[0].id;
  auto after = r->resolve(found[0].id, res);
  ASSERT_TRUE(after.has_value()) << after.error().message;
  EXPECT_EQ(after->state, store::DifferenceState::kRepaired);
  EXPECT_TRUE(in_inbox("e1"));
  // Not open any more: a second action conflicts.
  auto again = r->resolve(found[0].id, res);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, ErrorCode::kConflict);
}

TEST_F(ReconcilerTest, ResolveValidatesItsInput) {
  options_.repair = RepairMode::kManual;
  feed_.serve(kFeed, 200, page({"e1"}, "", true));
  auto r = make();
  ASSERT_TRUE(r->run_once("api").has_value());
  const auto id = differences().at(0).id;
  Resolution res;
  res.audit.actor = "ops";
  res.action = store::DifferenceAction::kCorrectState;
  auto no_state = r->resolve(id, res);
  ASSERT_FALSE(no_state.has_value());
  EXPECT_EQ(no_state.error().code, ErrorCode::kInvalidArgument);

  res.action = store::DifferenceAction::kIgnore;
  res.state = "completed";
  auto stray_state = r->resolve(id, res);
  ASSERT_FALSE(stray_state.has_value());
  EXPECT_EQ(stray_state.error().code, ErrorCode::kInvalidArgument);

  auto unknown = r->resolve("rcd_nope", Resolution{});
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);

  res.action = store::DifferenceAction::kCorrectState;
  auto corrected = r->resolve(id, res);
  ASSERT_TRUE(corrected.has_value()) << corrected.error().message;
  EXPECT_EQ(corrected->state, store::DifferenceState::kResolved);
  auto entity = store_->inbox_entity("esign", "ent-e1");
  ASSERT_TRUE(entity.has_value()) << entity.error().message;
  EXPECT_EQ(entity->state, "completed");
  EXPECT_TRUE(entity->terminal);
}

TEST_F(ReconcilerTest, PagingFollowsTheCursorParam) {
  feed_.serve(kFeed, 200, page({"p1"}, "c 2", false));
  feed_.serve(kFeed + "?iterator=c%202", 200, page({"p2"}, "c3", false));
  feed_.serve(kFeed + "?iterator=c3", 200, page({"p3"}, "c4", true));
  auto run = make()->run_once("api");
  ASSERT_TRUE(run.has_value());
  EXPECT_FALSE(run->error.has_value()) << *run->error;
  EXPECT_EQ(run->items_read, 3);
  EXPECT_EQ(feed_.requests().size(), 3u);
  for (const auto* id : {"p1", "p2", "p3"}) EXPECT_TRUE(in_inbox(id)) << id;
  auto cursor = store_->reconcile_cursor("esign");
  ASSERT_TRUE(cursor.has_value());
  EXPECT_EQ(cursor->cursor, "c4");
  EXPECT_TRUE(cursor->watermark_at.has_value());
  EXPECT_FALSE(cursor->lease_until.has_value() && cursor->lease_owner.has_value() &&
               *cursor->lease_until > clock_.now_ms());
}

TEST_F(ReconcilerTest, AFailingPageClosesTheRunAndTheNextRunResumesWithoutDuplicates) {
  feed_.serve(kFeed, 200, page({"a1", "a2"}, "c2", false));
  feed_.fail_transport(kFeed + "?iterator=c2");
  auto r = make();
  auto first = r->run_once("api");
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(first->error.has_value());
  EXPECT_NE(first->error->find("timeout"), std::string::npos) << *first->error;
  EXPECT_EQ(store_->reconcile_cursor("esign")->cursor, "c2");

  feed_.heal(kFeed + "?iterator=c2");
  feed_.serve(kFeed + "?iterator=c2", 200, page({"a2", "a3"}, "c3", true));
  auto second = r->run_once("api");
  ASSERT_TRUE(second.has_value());
  EXPECT_FALSE(second->error.has_value()) << *second->error;
  EXPECT_EQ(second->differences_found, 1);  // a2 was already there
  EXPECT_EQ(differences().size(), 3u);
  EXPECT_EQ(feed_.requests().back().url, kFeed + "?iterator=c2");
}

TEST_F(ReconcilerTest, ASenderThatNeverAnswersTimesTheRunOut) {
  options_.page_timeout = std::chrono::milliseconds(20);
  feed_.serve(kFeed, 200, page({"h1"}, "c2", false));
  feed_.silence(kFeed + "?iterator=c2");
  auto run = make()->run_once("api");
  ASSERT_TRUE(run.has_value());
  ASSERT_TRUE(run->error.has_value());
  EXPECT_NE(run->error->find("timeout"), std::string::npos) << *run->error;
  EXPECT_TRUE(in_inbox("h1"));
  EXPECT_EQ(store_->reconcile_cursor("esign")->cursor, "c2");
}

TEST_F(ReconcilerTest, BadAnswersCloseTheRunWithTheirError) {
  auto r = make();
  for (const auto& [status, body] :
       std::vector<std::pair<int, std::string>>{{500, "{}"},
                                                {200, "not json"},
                                                {200, R"({"data":{"x":1}})"},
                                                {200, R"({"data":[{"payload":{}}]})"},
                                                {200, std::string(80, '[')}}) {
    feed_.serve(kFeed, status, body);
    auto run = r->run_once("api");
    ASSERT_TRUE(run.has_value());
    EXPECT_TRUE(run->error.has_value()) << body;
    EXPECT_TRUE(run->finished_at.has_value());
  }
  EXPECT_TRUE(differences().empty());
  options_.max_page_bytes = 10;
  feed_.serve(kFeed, 200, page({"big"}, "", true));
  auto run = make()->run_once("api");
  ASSERT_TRUE(run.has_value());
  ASSERT_TRUE(run->error.has_value());
  EXPECT_NE(run->error->find("max_page_bytes"), std::string::npos);
}

TEST_F(ReconcilerTest, OneRunAtATimeAndStopClosesTheRunInProgress) {
  options_.max_pages_per_run = 1'000'000;
  feed_.serve(kFeed, 200, page({"s1"}, "c2", false));
  feed_.endless_page = [](int n) {
    return page({"s" + std::to_string(n)}, "c" + std::to_string(n + 1), false);
  };
  feed_.endless_ = true;
  feed_.hold(true);
  auto r = make();
  auto started = r->start_run("api");
  ASSERT_TRUE(started.has_value()) << started.error().message;
  EXPECT_FALSE(started->finished_at.has_value());
  feed_.wait_for_requests(1);
  auto second = r->start_run("api");
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().code, ErrorCode::kConflict);
  auto inline_run = r->run_once("cli");
  ASSERT_FALSE(inline_run.has_value());
  EXPECT_EQ(inline_run.error().code, ErrorCode::kConflict);
  // Another node's reconciler conflicts through the store's lease.
  options_.lease_owner = "node-b/reconcile";
  auto other = make()->run_once("api");
  ASSERT_FALSE(other.has_value());
  EXPECT_EQ(other.error().code, ErrorCode::kConflict);

  feed_.hold(false);  // the run walks the endless feed until it sees the stop
  r->stop();
  auto closed = store_->reconcile_get_run(started->id);
  ASSERT_TRUE(closed.has_value());
  EXPECT_TRUE(closed->finished_at.has_value());
  ASSERT_TRUE(closed->error.has_value());
  EXPECT_EQ(*closed->error, "stopped");
  // The lease is free again: the next run starts (and stops at the end of the feed).
  feed_.endless_ = false;
  auto next = r->run_once("api");
  ASSERT_TRUE(next.has_value()) << next.error().message;
}

TEST_F(ReconcilerTest, TheIntervalThreadRunsUntilStopped) {
  options_.interval = std::chrono::milliseconds(1);
  feed_.serve(kFeed, 200, page({"i1"}, "", true));
  auto r = make();
  r->start();
  r->start();                  // idempotent
  feed_.wait_for_requests(3);  // several interval runs
  r->stop();
  r->stop();  // idempotent
  EXPECT_TRUE(in_inbox("i1"));
  EXPECT_EQ(differences().size(), 1u);
  store::PageRequest p;
  p.limit = 250;
  auto runs = store_->reconcile_list_runs(std::string("esign"), p);
  ASSERT_TRUE(runs.has_value());
  ASSERT_GE(runs->data.size(), 3u);
  for (const auto& run : runs->data) {
    EXPECT_EQ(run.trigger, "interval");
    EXPECT_TRUE(run.finished_at.has_value());
  }
  // Stopped: no more requests, and a manual run still works.
  const auto seen = feed_.requests().size();
  ASSERT_TRUE(r->run_once("cli").has_value());
  EXPECT_EQ(feed_.requests().size(), seen + 1);
}

TEST_F(ReconcilerTest, NoFeedUrlRunsAndClosesEmpty) {
  options_.feed_url = "";
  auto run = make()->run_once("api");
  ASSERT_TRUE(run.has_value());
  EXPECT_FALSE(run->error.has_value());
  EXPECT_TRUE(feed_.requests().empty());
}

TEST_F(ReconcilerTest, StuckEntitiesAreCheckedAgainstTheStatusUrl) {
  ASSERT_NO_FATAL_FAILURE(entities_pending({"k1", "k2", "k3"}));
  // ent-k1: same state; ent-k2: another non-terminal state; ent-k3: terminal at the provider.
  const std::string status = "http://127.0.0.1:9/status/";
  feed_.serve(status + "ent-k1", 200, R"({"status":"pending"})");
  feed_.serve(status + "ent-k2", 200, R"({"status":"sent"})");
  feed_.serve(status + "ent-k3", 200, R"({"status":"completed"})");
  options_.repair = RepairMode::kAuto;
  options_.feed_url = "";
  options_.status_url = status + "{entity}";
  options_.stuck_after = std::chrono::milliseconds(-60'000);
  auto r = make();
  auto run = r->run_once("api");
  ASSERT_TRUE(run.has_value());
  EXPECT_FALSE(run->error.has_value()) << *run->error;
  std::map<std::string, store::Difference> mismatches;
  for (const auto& d : differences()) {
    if (d.kind == store::DifferenceKind::kStateMismatch) mismatches[*d.entity_key] = d;
  }
  ASSERT_EQ(mismatches.size(), 2u);
  EXPECT_EQ(mismatches["ent-k2"].state, store::DifferenceState::kOpen);
  EXPECT_EQ(mismatches["ent-k2"].subject, "ent-k2\nsent");
  EXPECT_FALSE(in_inbox("reconcile:ent-k2:sent"));
  EXPECT_EQ(mismatches["ent-k3"].state, store::DifferenceState::kRepaired);
  auto synthesized = store_->inbox_find("esign", "reconcile:ent-k3:completed");
  ASSERT_TRUE(synthesized.has_value());
  EXPECT_EQ(nlohmann::json::parse(synthesized->payload),
            nlohmann::json::parse(R"({"entity":"ent-k3","state":"completed"})"));
  // A second run records nothing new.
  ASSERT_TRUE(r->run_once("api").has_value());
  std::size_t again = 0;
  for (const auto& d : differences()) again += d.kind == store::DifferenceKind::kStateMismatch;
  EXPECT_EQ(again, 2u);
}

TEST_F(ReconcilerTest, AFailedStatusCallIsAStuckDifferenceAndSkipsOnlyItsEntity) {
  ASSERT_NO_FATAL_FAILURE(entities_pending({"k1", "k2", "k3", "k4"}));
  // ent-k1 answers 500, ent-k2 times out, ent-k4 has no state; ent-k3 still gets checked.
  const std::string status = "http://127.0.0.1:9/status/";
  feed_.serve(status + "ent-k1", 500, "");
  feed_.fail_transport(status + "ent-k2");
  feed_.serve(status + "ent-k3", 200, R"({"status":"completed"})");
  feed_.serve(status + "ent-k4", 200, R"({"other":"x"})");
  options_.repair = RepairMode::kAuto;
  options_.feed_url = "";
  options_.status_url = status + "{entity}";
  options_.stuck_after = std::chrono::milliseconds(-60'000);
  auto run = make()->run_once("api");
  ASSERT_TRUE(run.has_value());
  ASSERT_TRUE(run->error.has_value());
  EXPECT_NE(run->error->find("status of ent-k1: HTTP 500"), std::string::npos) << *run->error;
  EXPECT_NE(run->error->find("(and 2 more status calls failed)"), std::string::npos) << *run->error;
  std::size_t mismatches = 0;
  std::map<std::string, store::Difference> unknown;  // kind stuck, by entity
  for (const auto& d : differences()) {
    if (d.kind == store::DifferenceKind::kStuck) unknown[*d.entity_key] = d;
    if (d.kind != store::DifferenceKind::kStateMismatch) continue;
    ++mismatches;
    EXPECT_EQ(d.entity_key, "ent-k3");
    EXPECT_EQ(d.state, store::DifferenceState::kRepaired);
  }
  EXPECT_EQ(mismatches, 1u);
  EXPECT_TRUE(in_inbox("reconcile:ent-k3:completed"));
  // The three whose state could not be read are stuck differences with their evidence, open.
  ASSERT_EQ(unknown.size(), 3u);
  EXPECT_EQ(unknown["ent-k1"].evidence.status, 500);
  EXPECT_EQ(unknown["ent-k1"].evidence.request, "GET " + status + "ent-k1");
  EXPECT_FALSE(unknown["ent-k2"].evidence.status.has_value());  // timed out
  EXPECT_EQ(unknown["ent-k4"].evidence.excerpt, R"({"other":"x"})");
  for (const auto& [entity, d] : unknown) {
    EXPECT_EQ(d.state, store::DifferenceState::kOpen) << entity;
    EXPECT_EQ(d.local_state, "pending") << entity;
  }
  // Recorded once: the next run (same failures) adds none.
  ASSERT_TRUE(make()->run_once("api").has_value());
  std::size_t again = 0;
  for (const auto& d : differences()) again += d.kind == store::DifferenceKind::kStuck;
  EXPECT_EQ(again, 3u);
}

// An event parked past park_timeout, as the forwarder writes it.
void park_timed_out(store::InboxStore& inbox, Clock& clock, const std::string& event_id,
                    std::vector<std::string> depends_on) {
  store::InboxEvent e;
  e.source = "esign";
  e.event_id = event_id;
  e.depends_on = std::move(depends_on);
  e.payload = "{}";
  ASSERT_TRUE(inbox.inbox_insert(e).has_value());
  store::InboxClaimRequest req;
  req.lease_owner = "fw";
  req.limit = 10;
  auto claimed = inbox.inbox_claim(req);
  ASSERT_TRUE(claimed.has_value());
  for (const auto& c : *claimed) {
    store::InboxStatusUpdate u;
    u.id = c.id;
    u.lease_owner = "fw";
    u.to = store::InboxStatus::kParked;
    u.error = "park_timeout";
    u.note = "park_timeout: flagged for reconciliation";
    u.next_attempt_at = clock.now_ms() + 1'000'000;
    ASSERT_TRUE(inbox.inbox_update_status(u).has_value());
  }
}

TEST_F(ReconcilerTest, ParkedEventsPastTheirTimeoutAreReleasedWithoutTheirDependency) {
  park_timed_out(*store_, clock_, "child", {"dep-1"});
  options_.feed_url = "";
  auto r = make();
  auto run = r->run_once("api");
  ASSERT_TRUE(run.has_value());
  EXPECT_FALSE(run->error.has_value()) << *run->error;
  auto found = differences();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].kind, store::DifferenceKind::kParkedTimeout);
  EXPECT_EQ(found[0].state, store::DifferenceState::kOpen);  // for a person
  auto ev = store_->inbox_find("esign", "child");
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->status, store::InboxStatus::kReceived);
  EXPECT_EQ(ev->headers.at("hookd-dependency-missing"), "dep-1");
  auto actions = store_->reconcile_actions(found[0].id);
  ASSERT_TRUE(actions.has_value());
  ASSERT_EQ(actions->size(), 1u);
  EXPECT_EQ(actions->front().by, "auto");
  // A second run: nothing parked any more, nothing new.
  ASSERT_TRUE(r->run_once("api").has_value());
  EXPECT_EQ(store_->reconcile_actions(found[0].id)->size(), 1u);
}

TEST_F(ReconcilerTest, AParkedEventWhoseDependencyIsInTheFeedIsNotReleased) {
  park_timed_out(*store_, clock_, "child", {"dep-1"});
  feed_.serve(kFeed, 200, page({"dep-1"}, "", true));
  auto run = make()->run_once("api");
  ASSERT_TRUE(run.has_value());
  EXPECT_FALSE(run->error.has_value()) << *run->error;
  EXPECT_TRUE(in_inbox("dep-1"));
  auto ev = store_->inbox_find("esign", "child");
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->status, store::InboxStatus::kParked);
  EXPECT_FALSE(ev->headers.contains("hookd-dependency-missing"));
}

// since_param: each run starts at since_param=<watermark - overlap>, not at the stored cursor,
// so an item the provider lists late with an older time (inside the overlap) is still found.
TEST_F(ReconcilerTest, ASinceFeedStartsEachRunOverlapBehindTheWatermark) {
  options_.since_param = "created[gte]";
  options_.overlap = std::chrono::minutes(10);
  feed_.serve(kFeed, 200, page({"e1"}, "c1", false));  // e1 at 2024-05-01T10:00:00Z
  feed_.serve(kFeed + "?iterator=c1", 200, page({}, "", true));
  auto r = make();
  auto first = r->run_once("api");
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_FALSE(first->error.has_value()) << *first->error;
  EXPECT_EQ(first->differences_found, 1);

  const std::string since = kFeed + "?created%5Bgte%5D=1714557000";  // 10:00 - 10 min
  const std::string late =
      R"({"id":"e0","timestamp":"2024-05-01T09:55:00Z","payload":{"id":"e0","entity":"ent-e0",)"
      R"("state":"pending"}})";
  feed_.serve(since, 200, R"({"data":[)" + late + "," + item("e1") + R"(],"iterator":"c2"})");
  feed_.serve(since + "&iterator=c2", 200, page({}, "", true));
  auto second = r->run_once("api");
  ASSERT_TRUE(second.has_value()) << second.error().message;
  EXPECT_FALSE(second->error.has_value()) << *second->error;
  EXPECT_EQ(second->items_read, 2);
  EXPECT_EQ(second->differences_found, 1);  // e0; e1 was received
  EXPECT_TRUE(in_inbox("e0"));

  std::vector<std::string> urls;
  for (const auto& request : feed_.requests()) urls.push_back(request.url);
  EXPECT_EQ(urls, (std::vector<std::string>{kFeed, kFeed + "?iterator=c1", since,
                                            since + "&iterator=c2"}));
  EXPECT_EQ(differences().size(), 2u);
}

TEST(FeedPageTest, AWalkStartsAtTheCursorOrOverlapBeforeTheWatermark) {
  ReconcileOptions o;
  o.overlap = std::chrono::minutes(10);
  auto cursor_only = walk_start(o, "c7", 1'700'000'000'000);
  EXPECT_EQ(cursor_only.cursor, "c7");
  EXPECT_EQ(cursor_only.since, "");

  o.since_param = "since";
  auto unix = walk_start(o, "c7", 1'700'000'000'999);
  EXPECT_EQ(unix.cursor, "");                      // the stored cursor is not used
  EXPECT_EQ(unix.since, "1699999400");             // rounded down: the boundary is re-read
  EXPECT_EQ(walk_start(o, "c7", std::nullopt).since, "");  // no watermark: the feed's start
  o.since_format = SinceFormat::kRfc3339;
  EXPECT_EQ(walk_start(o, "", 1'700'000'000'500).since, "2023-11-14T22:03:20.500Z");
  o.overlap = std::chrono::milliseconds(0);
  EXPECT_EQ(walk_start(o, "", 1'700'000'000'000).since, "2023-11-14T22:13:20.000Z");

  o.feed_url = "http://h/feed";
  o.since_param = "created[gte]";
  EXPECT_EQ(page_url(o, "", "1699999400"), "http://h/feed?created%5Bgte%5D=1699999400");
  EXPECT_EQ(page_url(o, "x y", "2023-11-14T22:03:20.500Z"),
            "http://h/feed?created%5Bgte%5D=2023-11-14T22%3A03%3A20.500Z&iterator=x%20y");
}

TEST(FeedPageTest, ItemTimesAndUrls) {
  EXPECT_EQ(parse_item_time("1700000000"), 1'700'000'000'000);
  EXPECT_EQ(parse_item_time("2023-11-14T22:13:20Z"), 1'700'000'000'000);
  EXPECT_EQ(parse_item_time("2023-11-14T23:13:20.5+01:00"), 1'700'000'000'500);
  EXPECT_FALSE(parse_item_time("yesterday").has_value());
  EXPECT_FALSE(parse_item_time("2023-13-14T22:13:20Z").has_value());
  ReconcileOptions o;
  o.feed_url = "http://h/feed?kind=a";
  EXPECT_EQ(page_url(o, ""), "http://h/feed?kind=a");
  EXPECT_EQ(page_url(o, "a&b=c"), "http://h/feed?kind=a&iterator=a%26b%3Dc");
}

}  // namespace
}  // namespace hookd::reconcile
