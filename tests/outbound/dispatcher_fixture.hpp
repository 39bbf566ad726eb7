// Shared fixture of the dispatcher tests: a real SQLite store on a temp file, the real
// HttpClient (SSRF guard allow-listing 127.0.0.0/8) against a TestReceiver on loopback, and
// a Dispatcher with short delays. Time is an env::FakeClock shared by the store and the
// dispatcher (jitter: env::FakeRandom, always 0.5), so every policy time — backoff, gate
// waits, circuit cool-down and ramp, lease expiry, endpoint cache TTL — passes only when a
// test moves the clock (advance(), advance_until(), wait_status()); each move wakes the
// dispatcher. HTTP timeouts and the receiver's delays stay real. Waits are bounded polls on
// counts, never fixed sleeps.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/sinks/stdout_sinks.h>
#include "core/address_policy.hpp"
#include "env/fake_env.hpp"
#include "net/http_client.hpp"
#include "net/http_client_guard.hpp"

#include "ops/alerts.hpp"
#include "ops/hookd_metrics.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"
#include "outbound/dispatcher.hpp"
#include "store/sqlite/sqlite_store.hpp"
#include "store/store_contract.hpp"
#include "support/test_receiver.hpp"

namespace hookd::outbound::testing {

using namespace std::chrono_literals;
using hookd::testing::ReceivedRequest;
using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

inline constexpr const char* kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

// Polls `done` every `every` (real time) until it holds or `timeout` passes.
inline bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout = 15s,
                       std::chrono::milliseconds every = 5ms) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(every);
  }
  return done();
}

// Records every alert raised (type and data), for assertions.
class RecordingAlerts final : public ops::AlertSink {
 public:
  void raise(std::string_view type, nlohmann::json data) override {
    std::lock_guard lock(mutex_);
    raised_.emplace_back(std::string(type), std::move(data));
  }
  std::vector<std::string> types() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (const auto& [type, data] : raised_) out.push_back(type);
    return out;
  }
  std::vector<std::pair<std::string, nlohmann::json>> all() const {
    std::lock_guard lock(mutex_);
    return raised_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<std::string, nlohmann::json>> raised_;
};

class DispatcherTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  void stop_all();  // dispatcher, client, receiver: no callback runs afterwards
  // Declared after a test's locals that a receiver handler captures, so that it stops the
  // receiver before they are destroyed.
  struct StopBeforeLocalsDie {
    DispatcherTest* test;
    ~StopBeforeLocalsDie() { test->stop_all(); }
  };

  // Short delays: base 20 ms, max 200 ms, 5 attempts, poll 50 ms.
  static DispatcherOptions fast_options();
  void start_dispatcher(DispatcherOptions options = fast_options());

  // Publishes `count` messages {"i": n} of event type "tick" to app_ in one batch.
  bool publish_ticks(int count) {
    std::vector<store::NewMessage> batch;
    for (int i = 0; i < count; ++i) {
      store::NewMessage m;
      m.app_id = app_.id;
      m.event_type = "tick";
      m.payload = R"({"i":)" + std::to_string(i) + "}";
      batch.push_back(m);
    }
    return store_->publish_batch(batch).has_value();
  }

  store::Endpoint add_endpoint(const std::string& path,
                               const std::function<void(store::Endpoint&)>& tweak = {});
  store::Message publish(const std::string& payload,
                         std::optional<std::string> ordering_key = std::nullopt,
                         std::string event_type = "order.created");

  // Moves the fake clock on (its listener wakes the dispatcher).
  void advance(Duration by) { clock_.advance(by); }
  // Waits until the dispatcher has acted on the current time: two store rounds begun after
  // this call, and every request it sent answered — or, with `held_at_receiver`, every
  // request it has out arrived and held there. False after 5 s (real).
  bool settle(const std::function<std::int64_t()>& held_at_receiver = {});
  // Until `done` holds: lets the dispatcher act on the current time, then moves the clock on
  // by `step`. For what only time ends (retries, gate waits); false after `limit` of clock.
  bool advance_until(const std::function<bool()>& done, Duration step = 50ms, Duration limit = 60s);

  std::vector<store::Delivery> deliveries_of(const std::string& msg_id);
  std::int64_t count(store::DeliveryStatus status);
  std::size_t requests_to(const std::string& path) const;
  std::size_t attempt_rows_of_endpoint(const std::string& endpoint_id);
  // Moves the clock on (advance_until) until every delivery of the message has `status`.
  bool wait_status(const std::string& msg_id, store::DeliveryStatus status);
  std::uint64_t delivery_metric(const std::string& outcome);

  store::testing::TempDir dir_;
  env::FakeClock clock_;    // the store's and the dispatcher's
  env::FakeRandom random_;  // 0.5: backoff and cool-downs without jitter
  store::testing::FakeIds ids_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<StoreRounds> rounds_;
  TestReceiver receiver_;
  std::unique_ptr<net::HttpClient> client_;
  ops::Registry registry_;
  ops::HookdMetrics metrics_{registry_};
  RecordingAlerts alerts_;
  std::unique_ptr<ops::Logger> logger_;
  std::unique_ptr<Dispatcher> dispatcher_;
  store::Application app_;
};

// ---- definitions (header-only: the test glob only picks up *_test.cpp) ----

inline void DispatcherTest::SetUp() {
  store::sqlite::SqliteOptions options;
  options.path = (dir_.path() / "hookd.db").string();
  options.synchronous = "NORMAL";
  auto opened = store::sqlite::SqliteStore::open(options, clock_, ids_);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  store_ = std::move(*opened);
  ASSERT_TRUE(store_->migrate().has_value());
  rounds_ = std::make_unique<StoreRounds>(*store_);
  clock_.on_change([this] {
    if (dispatcher_) dispatcher_->wake();
  });
  receiver_.start();
  net::HttpClientOptions client_options;
  const std::vector<std::string> loopback{"127.0.0.0/8"};
  client_options.address_guard = net::make_address_guard(*AddressPolicy::from_strings(loopback));
  client_ = std::make_unique<net::HttpClient>(client_options);
  client_->start();
  store::Application app;
  app.name = "shop";
  auto created = store_->create_application(app);
  ASSERT_TRUE(created.has_value()) << created.error().message;
  app_ = *created;
}

inline void DispatcherTest::TearDown() { stop_all(); }

inline void DispatcherTest::stop_all() {
  if (dispatcher_) dispatcher_->stop();
  if (client_) client_->stop();
  receiver_.stop();
}

inline DispatcherOptions DispatcherTest::fast_options() {
  DispatcherOptions o;
  o.node_id = "test-node";
  o.poll_interval = 50ms;
  o.lease = 10s;
  o.endpoint_ttl = 200ms;
  o.connect_timeout = 1s;
  o.total_timeout = 2s;
  o.stop_grace = 500ms;
  o.overflow_delay = 100ms;
  o.retry.base_delay = 20ms;
  o.retry.max_delay = 200ms;
  o.retry.max_attempts = 5;
  o.retry.max_age = 1h;
  o.retry.min_retry_after = 10ms;
  o.gate.max_in_flight = 4;        // the config default
  o.gate.breaker.enabled = false;  // breaker tests set their own
  return o;
}

inline void DispatcherTest::start_dispatcher(DispatcherOptions options) {
  if (std::getenv("HOOKD_TEST_LOG") != nullptr) {  // debugging aid
    ops::LogOptions log_options;
    log_options.level = ops::LogLevel::kDebug;
    log_options.format = ops::LogFormat::kText;
    logger_ = std::make_unique<ops::Logger>(log_options,
                                            std::make_shared<spdlog::sinks::stderr_sink_mt>());
  }
  dispatcher_ = std::make_unique<Dispatcher>(
      options, DispatcherDeps{*store_, *store_, *store_, *rounds_, *client_, clock_, random_,
                              &metrics_, logger_.get(), &alerts_});
  auto started = dispatcher_->start();
  ASSERT_TRUE(started.has_value()) << started.error().message;
}

inline store::Endpoint DispatcherTest::add_endpoint(
    const std::string& path, const std::function<void(store::Endpoint&)>& tweak) {
  store::Endpoint ep;
  ep.app_id = app_.id;
  ep.url = receiver_.url(path);
  ep.secrets.current = kSecret;
  if (tweak) tweak(ep);
  auto created = store_->create_endpoint(ep);
  EXPECT_TRUE(created.has_value()) << created.error().message;
  return created.value_or(store::Endpoint{});
}

inline store::Message DispatcherTest::publish(const std::string& payload,
                                              std::optional<std::string> ordering_key,
                                              std::string event_type) {
  store::NewMessage m;
  m.app_id = app_.id;
  m.event_type = std::move(event_type);
  m.payload = payload;
  m.ordering_key = std::move(ordering_key);
  auto published = store_->publish(m);
  EXPECT_TRUE(published.has_value()) << published.error().message;
  if (dispatcher_) dispatcher_->wake();
  return published ? published->message : store::Message{};
}

inline bool DispatcherTest::settle(const std::function<std::int64_t()>& held_at_receiver) {
  if (!dispatcher_) return true;
  for (int i = 0; i < 2; ++i) {
    const auto rounds = dispatcher_->stats().rounds;
    dispatcher_->wake();
    const bool acted = eventually(
        [&] {
          const auto s = dispatcher_->stats();
          return s.rounds > rounds && s.in_flight == (held_at_receiver ? held_at_receiver() : 0);
        },
        5s, 1ms);
    if (!acted) return false;
  }
  return true;
}

inline bool DispatcherTest::advance_until(const std::function<bool()>& done, Duration step,
                                          Duration limit) {
  for (Duration moved{0};; moved += step) {
    settle();
    if (done()) return true;
    if (moved >= limit) return false;
    advance(step);
  }
}

inline std::vector<store::Delivery> DispatcherTest::deliveries_of(const std::string& msg_id) {
  return store_->list_deliveries_for_message(msg_id).value_or(std::vector<store::Delivery>{});
}

inline std::int64_t DispatcherTest::count(store::DeliveryStatus status) {
  return store_->count_deliveries(status).value_or(-1);
}

inline std::size_t DispatcherTest::requests_to(const std::string& path) const {
  std::size_t n = 0;
  for (const auto& r : receiver_.requests()) n += r.path == path ? 1 : 0;
  return n;
}

inline std::size_t DispatcherTest::attempt_rows_of_endpoint(const std::string& endpoint_id) {
  store::PageRequest page;
  page.limit = 250;
  std::size_t n = 0;
  while (true) {
    auto listed = store_->list_attempts_by_endpoint(endpoint_id, page);
    if (!listed) return n;
    n += listed->data.size();
    if (listed->done || !listed->iterator) return n;
    page.iterator = listed->iterator;
  }
}

inline bool DispatcherTest::wait_status(const std::string& msg_id, store::DeliveryStatus status) {
  return advance_until([&] {
    auto ds = deliveries_of(msg_id);
    return !ds.empty() &&
           std::ranges::all_of(ds, [&](const auto& d) { return d.status == status; });
  });
}

inline std::uint64_t DispatcherTest::delivery_metric(const std::string& outcome) {
  return metrics_.deliveries.with({outcome}).value();
}

}  // namespace hookd::outbound::testing
