// The Store contract suite's fixture: every backend registers a factory
// (INSTANTIATE_TEST_SUITE_P(..., StoreContract, ...)) and runs every TEST_P written against
// the Store interface. Fakes for the clock and id generator make runs deterministic.
// Thread-safety: FakeClock and FakeIds are safe to call from several threads.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "env/fake_env.hpp"
#include "store/id_generator.hpp"
#include "store/store.hpp"

namespace hookd::store::testing {

// Starts at 1'700'000'000'000 (2023-11-14T22:13:20Z); advance(ms), set(ms).
using FakeClock = env::FakeClock;

// "<prefix>_<12-digit counter>": unique and byte-wise increasing, like real time-sortable ids.
class FakeIds final : public IdGenerator {
 public:
  std::string next(std::string_view prefix) override;
  std::int64_t counter() const { return counter_.load(); }
  void reset(std::int64_t value) { counter_ = value; }

 private:
  std::atomic<std::int64_t> counter_{0};
};

struct StoreFactory {
  std::string name;
  // `dir` is a fresh empty directory for this test (file backends put their file there).
  std::function<std::unique_ptr<Store>(const std::filesystem::path& dir, Clock&, IdGenerator&)>
      make;
};

inline void PrintTo(const StoreFactory& f, std::ostream* os) { *os << f.name; }

// Backends register their factories once (a static bool in their *_test.cpp); every
// contract suite is instantiated over all of them (ValuesIn is evaluated lazily by gtest,
// after static initialisation). Adding a backend = registering one more factory.
inline std::vector<StoreFactory>& factory_registry() {
  static std::vector<StoreFactory> all;
  return all;
}
inline bool register_store_factory(StoreFactory f) {
  factory_registry().push_back(std::move(f));
  return true;
}
inline std::vector<StoreFactory> all_factories() { return factory_registry(); }

// A unique empty temporary directory, removed on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

class StoreContract : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override;

  // Helpers that ASSERT-fail the test on error.
  Application make_app(const std::string& name = "app");
  Endpoint make_endpoint(const std::string& app_id, std::function<void(Endpoint&)> tweak = {});
  PublishOutcome publish(const std::string& app_id, const std::string& event_type,
                         std::function<void(NewMessage&)> tweak = {});
  std::vector<Delivery> claim(const std::string& owner, int limit = 100,
                              std::int64_t lease_ms = 30'000);
  Delivery report(const Delivery& d, AttemptReport::Next next, std::int64_t next_at = 0,
                  std::optional<std::int64_t> status = 500);

  TempDir dir_;
  FakeClock clock_;
  FakeIds ids_;
  std::unique_ptr<Store> store_;
};

std::string factory_name(const ::testing::TestParamInfo<StoreFactory>& info);

// Builders (designated initializers on partial structs trip -Wmissing-field-initializers).
inline AuditEntry audit_entry(std::string action, std::string target_id = "",
                              std::string reason = "because") {
  AuditEntry a;
  a.actor = "ops@example";
  a.action = std::move(action);
  a.target_type = "delivery";
  a.target_id = std::move(target_id);
  a.reason = std::move(reason);
  return a;
}
inline EventType event_type(std::string name) {
  EventType t;
  t.name = std::move(name);
  return t;
}
inline AuditFilter audit_by_target(std::string id) {
  AuditFilter f;
  f.target_id = std::move(id);
  return f;
}
inline AuditFilter audit_by_action(std::string action) {
  AuditFilter f;
  f.action = std::move(action);
  return f;
}

// ---- definitions (header-only: the test glob only picks up *_test.cpp) ----

inline std::string FakeIds::next(std::string_view prefix) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%012lld", static_cast<long long>(++counter_));
  return std::string(prefix) + "_" + buf;
}

inline TempDir::TempDir() {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() /
          ("hookd-store-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}

inline TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

inline void StoreContract::SetUp() {
  store_ = GetParam().make(dir_.path(), clock_, ids_);
  ASSERT_NE(store_, nullptr);
  auto migrated = store_->migrate();
  ASSERT_TRUE(migrated.has_value()) << migrated.error().message;
}

inline Application StoreContract::make_app(const std::string& name) {
  Application app;
  app.name = name;
  auto r = store_->create_application(app);
  EXPECT_TRUE(r.has_value()) << r.error().message;
  return r.value_or(Application{});
}

inline Endpoint StoreContract::make_endpoint(const std::string& app_id,
                                             std::function<void(Endpoint&)> tweak) {
  Endpoint ep;
  ep.app_id = app_id;
  ep.url = "https://receiver.example/hook";
  ep.secrets.current = "whsec_c2VjcmV0";
  if (tweak) tweak(ep);
  auto r = store_->create_endpoint(ep);
  EXPECT_TRUE(r.has_value()) << r.error().message;
  return r.value_or(Endpoint{});
}

inline PublishOutcome StoreContract::publish(const std::string& app_id,
                                             const std::string& event_type,
                                             std::function<void(NewMessage&)> tweak) {
  NewMessage msg;
  msg.app_id = app_id;
  msg.event_type = event_type;
  msg.payload = R"({"hello":"world"})";
  if (tweak) tweak(msg);
  auto r = store_->publish(msg);
  EXPECT_TRUE(r.has_value()) << r.error().message;
  return r.value_or(PublishOutcome{});
}

inline std::vector<Delivery> StoreContract::claim(const std::string& owner, int limit,
                                                  std::int64_t lease_ms) {
  auto r = store_->claim_due(ClaimRequest{owner, lease_ms, limit});
  EXPECT_TRUE(r.has_value()) << r.error().message;
  return r.value_or(std::vector<Delivery>{});
}

inline Delivery StoreContract::report(const Delivery& d, AttemptReport::Next next,
                                      std::int64_t next_at, std::optional<std::int64_t> status) {
  AttemptReport rep;
  rep.delivery_id = d.id;
  rep.lease_owner = d.lease_owner.value_or("");
  rep.attempt.response_status = status;
  rep.attempt.duration_ms = 12;
  rep.next = next;
  rep.next_attempt_at = next_at;
  auto r = store_->record_attempt(rep);
  EXPECT_TRUE(r.has_value()) << r.error().message;
  return r.value_or(Delivery{});
}

inline std::string factory_name(const ::testing::TestParamInfo<StoreFactory>& info) {
  return info.param.name;
}

}  // namespace hookd::store::testing
