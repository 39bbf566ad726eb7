// Test fixture for the API: a real SQLite store in a temp file, the real publish group
// committer over it (app::PublishBatcher, as in hookd serve, started before the Api and
// stopped after it), an Api with one token ("alice" / kToken), and call() which runs
// Api::handle and waits for the answer (which may come from the publish committer thread). A
// FaultSwitch fails chosen SQL statements to simulate storage failures.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/api.hpp"
#include "app/publish_batcher.hpp"
#include "env/fake_env.hpp"
#include "ops/hookd_metrics.hpp"
#include "ops/metrics.hpp"
#include "store/sqlite/sqlite_store.hpp"
#include "store/store_contract.hpp"

namespace hookd::api::testing {

inline constexpr const char* kToken = "tok_alice_0123456789abcdef";

// Fails every statement whose SQL contains `needle` while armed; counts the statements
// seen (e.g. "BEGIN IMMEDIATE": write transactions).
class FaultSwitch final : public store::sqlite::FaultInjector {
 public:
  Status before_statement(std::string_view sql) override {
    std::lock_guard lock(mu_);
    seen_.emplace_back(sql);
    if (!needle_.empty() && sql.find(needle_) != std::string_view::npos) {
      return fail(ErrorCode::kUnavailable, "injected: disk I/O error");
    }
    return {};
  }
  void arm(std::string needle) {
    std::lock_guard lock(mu_);
    needle_ = std::move(needle);
  }
  void disarm() { arm(""); }
  std::size_t seen(std::string_view needle) {
    std::lock_guard lock(mu_);
    std::size_t n = 0;
    for (const auto& sql : seen_) n += sql.find(needle) != std::string::npos;
    return n;
  }
  void forget() {
    std::lock_guard lock(mu_);
    seen_.clear();
  }

 private:
  std::mutex mu_;
  std::string needle_;
  std::vector<std::string> seen_;
};

struct Answer {
  int status = 0;
  net::HttpHeaders headers;
  std::string body;
  nlohmann::json json() const {
    auto j = nlohmann::json::parse(body, nullptr, false);
    return j;
  }
  std::string header(std::string_view name) const {
    auto v = headers.get(name);
    return v ? std::string(*v) : std::string();
  }
};

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store::sqlite::SqliteOptions options;
    options.path = (dir_.path() / "hookd.db").string();
    options.synchronous = "NORMAL";  // tests: speed; durability is the store's own suite
    options.faults = faults_;
    auto opened = store::sqlite::SqliteStore::open(options, clock_, ids_);
    ASSERT_TRUE(opened.has_value()) << opened.error().message;
    store_ = std::move(*opened);
    ASSERT_TRUE(store_->migrate().has_value());
    publish_ = std::make_unique<app::PublishBatcher>(*store_);
    publish_->start();
    options_.tokens = {{"alice", kToken}, {"bob", "tok_bob_fedcba9876543210"}};
    start_api();
  }

  // (Re)starts the API with options_.
  void start_api() {
    if (api_) api_->stop();
    ApiDeps deps{*store_, *publish_, clock_, random_, &metrics_, &registry_, nullptr, options_};
    deps.reconcile = reconcile_;
    api_ = std::make_unique<Api>(deps);
    auto started = api_->start();
    ASSERT_TRUE(started.has_value()) << started.error().message;
  }

  void TearDown() override {
    if (api_) api_->stop();
    if (publish_) publish_->stop();  // answers every queued publish while the Api exists
  }

  Answer call(std::string method, std::string target, std::string body = {},
              std::vector<net::HttpHeader> headers = {}, const char* token = kToken) {
    net::HttpRequest request;
    request.method = std::move(method);
    request.target = std::move(target);
    request.body = std::move(body);
    if (token != nullptr) request.headers.add("Authorization", std::string("Bearer ") + token);
    for (auto& h : headers) request.headers.add(h.name, h.value);
    auto promise = std::make_shared<std::promise<net::HttpResponse>>();
    auto future = promise->get_future();
    api_->handle(std::move(request),
                 [promise](net::HttpResponse r) { promise->set_value(std::move(r)); });
    auto r = future.get();
    return Answer{r.status, r.headers, r.body};
  }

  Answer post(std::string target, const nlohmann::json& body,
              std::vector<net::HttpHeader> headers = {}) {
    return call("POST", std::move(target), body.dump(), std::move(headers));
  }

  // Helpers that create things and assert success.
  std::string make_app(const std::string& name = "Shop", std::optional<std::string> uid = {}) {
    nlohmann::json body = {{"name", name}};
    if (uid) body["uid"] = *uid;
    auto a = post("/api/v1/app", body);
    EXPECT_EQ(a.status, 201) << a.body;
    return a.json().value("id", "");
  }
  std::string make_endpoint(const std::string& app, nlohmann::json body = {}) {
    if (!body.contains("url")) body["url"] = "https://receiver.example/hook";
    auto a = post("/api/v1/app/" + app + "/endpoint", body);
    EXPECT_EQ(a.status, 201) << a.body;
    return a.json().value("id", "");
  }
  nlohmann::json publish(const std::string& app, nlohmann::json body = {}) {
    if (!body.contains("eventType")) body["eventType"] = "order.paid";
    if (!body.contains("payload")) body["payload"] = {{"order", 1}};
    auto a = post("/api/v1/app/" + app + "/msg", body);
    EXPECT_EQ(a.status, 202) << a.body;
    return a.json();
  }

  // Leases every due delivery and reports it dead (HTTP 400 from the receiver).
  int dead_letter_all() {
    auto claimed = store_->claim_due(store::ClaimRequest{"test", 30'000, 250});
    EXPECT_TRUE(claimed.has_value());
    int n = 0;
    for (const auto& d : claimed.value_or(std::vector<store::Delivery>{})) {
      store::AttemptReport report;
      report.delivery_id = d.id;
      report.lease_owner = "test";
      report.attempt.response_status = 400;
      report.attempt.url = "https://receiver.example/hook";
      report.attempt.attempted_at = clock_.now_ms();
      report.next = store::AttemptReport::Next::kDead;
      auto r = store_->record_attempt(report);
      EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
      ++n;
    }
    return n;
  }

  store::testing::TempDir dir_;
  store::testing::FakeClock clock_;
  store::testing::FakeIds ids_;
  std::shared_ptr<FaultSwitch> faults_ = std::make_shared<FaultSwitch>();
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<app::PublishBatcher> publish_;
  ApiOptions options_;                  // start_api() uses these
  ReconcilePort* reconcile_ = nullptr;  // and this (null: no reconciler)
  env::FakeRandom random_;              // deterministic "random" bytes (a counter)
  ops::Registry registry_;
  ops::HookdMetrics metrics_{registry_};
  std::unique_ptr<Api> api_;
};

}  // namespace hookd::api::testing
