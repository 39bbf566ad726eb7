// The forwarder against an in-memory SQLite inbox and a fake HttpSender: what it sends, and
// what each answer does to the event (processed + entity, retry, dead + audit).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include "inbound/forwarder.hpp"
#include "inbound/inbound_fixtures.hpp"
#include "support/concurrency.hpp"
#include "support/proc_threads.hpp"

namespace hookd::inbound {
namespace {

using namespace testing;
using namespace std::chrono_literals;

class FakeSender final : public net::HttpSender {
 public:
  void send(net::OutboundRequest request, Done done) override {
    net::AttemptResult r;
    {
      std::lock_guard lock(mu_);
      requests.push_back(request);
      r.status = status;
    }
    done(std::move(r));
  }
  std::vector<net::OutboundRequest> sent() {
    std::lock_guard lock(mu_);
    return requests;
  }
  std::mutex mu_;
  std::vector<net::OutboundRequest> requests;
  int status = 200;
};

std::string header(const net::OutboundRequest& r, std::string_view name) {
  for (const auto& [n, v] : r.headers) {
    if (net::iequals(n, name)) return v;
  }
  return {};
}

class ForwarderTest : public ::testing::Test {
 protected:
  void start(config::SourceConfig c) {
    store_ = memory_store(clock_, ids_);
    std::map<std::string, std::shared_ptr<const Source>, std::less<>> sources;
    sources[c.name] = std::make_shared<const Source>(make_source(c));
    ForwarderOptions o = options_;
    o.poll_interval = 10ms;
    forwarder_ = std::make_unique<Forwarder>(
        o, ForwarderDeps{*store_, sender_, clock_, random_, sources, nullptr, nullptr, nullptr});
    ASSERT_TRUE(forwarder_->start());
  }

  void insert(const std::string& id, const std::string& body,
              std::optional<std::string> entity = {}, std::optional<std::int64_t> seq = {}) {
    store::InboxEvent e;
    e.source = "shop";
    e.event_id = id;
    e.entity_key = std::move(entity);
    e.sequence = seq;
    e.business_key = "key:" + id;
    e.headers = {{"content-type", "application/json"}};
    e.payload = body;
    ASSERT_TRUE(store_->inbox_insert(e));
    forwarder_->wake();
  }

  store::InboxStatus wait_until_not_open(const std::string& id) {
    for (int i = 0; i < 500; ++i) {
      auto e = store_->inbox_find("shop", id);
      if (e && e->status != store::InboxStatus::kReceived &&
          e->status != store::InboxStatus::kProcessing) {
        return e->status;
      }
      std::this_thread::sleep_for(10ms);
    }
    return store::InboxStatus::kProcessing;
  }

  void TearDown() override {
    if (forwarder_) forwarder_->stop();
  }

  env::FakeClock clock_{kNow * 1000};  // the store's and the forwarder's: stands still
  TestIds ids_;
  env::FakeRandom random_;  // 0.5
  FakeSender sender_;
  std::unique_ptr<store::Store> store_;
  ForwarderOptions options_;  // start() uses these (with a short poll interval)
  std::unique_ptr<Forwarder> forwarder_;
};

// The level is relative to the one the test runs at (`nice make test` must pass too).
TEST_F(ForwarderTest, ItsThreadIsNamedAndRunsAtTheConfiguredNiceLevel) {
  const int base = ::getpriority(PRIO_PROCESS, 0);
  const int expected = std::min(19, base + 7);
  options_.nice = 7;
  start(source_config());
  auto threads = hookd::testing::thread_nice_levels(::getpid());
  hookd::testing::wait_until([&] {  // the thread sets its level as it starts
    threads = hookd::testing::thread_nice_levels(::getpid());
    return threads.contains("hookd-forward") &&
           threads["hookd-forward"] == std::vector<int>{expected};
  });
  ASSERT_TRUE(threads.contains("hookd-forward"));
  EXPECT_EQ(threads.at("hookd-forward"), std::vector<int>{expected});
  EXPECT_EQ(::getpriority(PRIO_PROCESS, 0), base);  // this thread (the test's) is unchanged
}

TEST_F(ForwarderTest, ForwardsSignedWithIdempotencyKeyAndRecordsTheEntity) {
  auto c = source_config();
  c.entity_key = "/c";
  c.state = "/s";
  c.terminal_states = {"signed"};
  start(c);
  insert("evt_1", R"({"c":"c-1","s":"signed"})", "c-1", 4);
  ASSERT_EQ(wait_until_not_open("evt_1"), store::InboxStatus::kProcessed);
  const auto sent = sender_.sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].url, "http://127.0.0.1:1/app");
  EXPECT_EQ(sent[0].body, R"({"c":"c-1","s":"signed"})");
  EXPECT_EQ(header(sent[0], "Idempotency-Key"), "key:evt_1");
  EXPECT_EQ(header(sent[0], "X-Hookd-Event-Id"), "evt_1");
  HttpHeaders core;
  for (const auto& [n, v] : sent[0].headers) core.push_back({n, v});
  auto verifier = Verifier::create(SchemeOptions{}, std::vector<std::string>{kForwardSecret});
  EXPECT_TRUE(verifier->verify(core, sent[0].body, kNow));
  auto entity = store_->inbox_entity("shop", "c-1");
  ASSERT_TRUE(entity);
  EXPECT_EQ(entity->last_sequence, 4);
  EXPECT_TRUE(entity->terminal);
}

TEST_F(ForwarderTest, A503IsRetriedLaterA422IsDeadAndAudited) {  // A01, A03 (inbound side)
  auto c = source_config();
  start(c);
  sender_.status = 503;
  insert("evt_r", "{}");
  ASSERT_EQ(wait_until_not_open("evt_r"), store::InboxStatus::kRetry);
  auto retry = store_->inbox_find("shop", "evt_r");
  EXPECT_EQ(retry->attempts, 1);
  EXPECT_GT(retry->next_attempt_at, kNow * 1000);
  sender_.status = 422;
  insert("evt_d", "{}");
  ASSERT_EQ(wait_until_not_open("evt_d"), store::InboxStatus::kDead);
  // The audit entry is written in the status change's own transaction: once the event is
  // dead, its entry is there.
  store::AuditFilter f;
  f.action = "inbox.dead";
  const auto audited = store_->list_audit(f, store::PageRequest{})->data.size();
  EXPECT_EQ(audited, 1u);
}

TEST_F(ForwarderTest, StaleAndSupersededAreNotSent) {  // A19, A20
  auto c = source_config();
  c.entity_key = "/c";
  c.sequence = "/v";
  c.state = "/s";
  c.terminal_states = {"signed"};
  start(c);
  insert("v5", R"({"c":"k","v":5,"s":"sent"})", "k", 5);
  ASSERT_EQ(wait_until_not_open("v5"), store::InboxStatus::kProcessed);
  insert("v4", R"({"c":"k","v":4,"s":"sent"})", "k", 4);
  EXPECT_EQ(wait_until_not_open("v4"), store::InboxStatus::kStale);
  insert("v6", R"({"c":"k","v":6,"s":"signed"})", "k", 6);
  ASSERT_EQ(wait_until_not_open("v6"), store::InboxStatus::kProcessed);
  insert("v7", R"({"c":"k","v":7,"s":"viewed"})", "k", 7);
  EXPECT_EQ(wait_until_not_open("v7"), store::InboxStatus::kSuperseded);
  EXPECT_EQ(sender_.sent().size(), 2u);
}

// A21's flag is raised once: the first period past park_timeout records the parked_timeout
// difference (in the status change's own transaction), logs and counts; later periods only
// look again. Before, every period re-raised it and nothing read it.
TEST_F(ForwarderTest, AParkTimeoutIsFlaggedOnceWithOneDifference) {
  auto c = source_config();
  c.depends_on = "/after";
  c.park_timeout = 1s;
  start(c);
  store::InboxEvent e;
  e.source = "shop";
  e.event_id = "second";
  e.depends_on = {"first"};
  e.headers = {{"content-type", "application/json"}};
  e.payload = R"({"after":"first"})";
  ASSERT_TRUE(store_->inbox_insert(e));
  forwarder_->wake();
  ASSERT_EQ(wait_until_not_open("second"), store::InboxStatus::kParked);
  auto notes_with = [&](std::string_view prefix) {
    int n = 0;
    const auto history = store_->inbox_history(store_->inbox_find("shop", "second")->id);
    for (const auto& h : *history) {
      if (h.note.starts_with(prefix)) ++n;
    }
    return n;
  };
  for (int period = 0; period < 4; ++period) {
    const int looked = notes_with("park") + notes_with("parked");
    clock_.advance(1500);
    forwarder_->wake();
    hookd::testing::wait_until([&] { return notes_with("park") + notes_with("parked") > looked; });
  }
  EXPECT_EQ(notes_with("park_timeout:"), 1);
  EXPECT_GE(notes_with("parked: still waiting for first"), 2);
  EXPECT_EQ(store_->inbox_find("shop", "second")->status, store::InboxStatus::kParked);
  store::DifferenceFilter f;
  f.kind = store::DifferenceKind::kParkedTimeout;
  auto diffs = store_->reconcile_list_differences(f, store::PageRequest{});
  ASSERT_TRUE(diffs) << diffs.error().message;
  ASSERT_EQ(diffs->data.size(), 1u);
  EXPECT_EQ(diffs->data[0].subject, "second");
  EXPECT_EQ(diffs->data[0].local_state, "parked");
  EXPECT_EQ(diffs->data[0].state, store::DifferenceState::kOpen);
  EXPECT_TRUE(sender_.sent().empty());
}

// A dependency waived by a person or the reconciler (the stored hookd-dependency-missing
// header): forwarded although the dependency never came, the header telling the app.
TEST_F(ForwarderTest, AWaivedDependencyIsForwardedWithTheHeader) {
  auto c = source_config();
  c.depends_on = "/after";
  start(c);
  store::InboxEvent e;
  e.source = "shop";
  e.event_id = "orphan";
  e.depends_on = {"never"};
  e.headers = {{"content-type", "application/json"},
               {std::string(store::kDependencyMissingHeader), "never"}};
  e.payload = R"({"after":"never"})";
  ASSERT_TRUE(store_->inbox_insert(e));
  forwarder_->wake();
  ASSERT_EQ(wait_until_not_open("orphan"), store::InboxStatus::kProcessed);
  const auto sent = sender_.sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(header(sent[0], "hookd-dependency-missing"), "never");
}

}  // namespace
}  // namespace hookd::inbound
