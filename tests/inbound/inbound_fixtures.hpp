// Shared fixtures of the inbound unit tests: source configs for each scheme, Source objects
// built from them through the composition root's translation (app::source_settings),
// Standard Webhooks signing of a test request, an in-memory SQLite store (the tests give it an
// env::FakeClock at kNow). Thread-safety: test-only; TestIds is atomic.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "app/module_options.hpp"
#include "config/config.hpp"
#include "env/fake_env.hpp"
#include "inbound/source.hpp"
#include "net/http_types.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::inbound::testing {

inline const std::string kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
inline const std::string kForwardSecret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
inline constexpr std::int64_t kNow = 1'700'000'000;

inline config::SourceConfig source_config(config::Scheme scheme = config::Scheme::kStandard) {
  config::SourceConfig c;
  c.name = "shop";
  c.scheme = scheme;
  if (scheme != config::Scheme::kNone) c.secrets = {kSecret};
  c.max_body_bytes = 1024;
  c.forward.url = "http://127.0.0.1:1/app";
  c.forward.secret = kForwardSecret;
  return c;
}

inline Source make_source(const config::SourceConfig& c) {
  auto s = Source::create(app::source_settings(c));
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message);
  return std::move(*s);
}

inline net::HttpHeaders signed_headers(const std::string& id, const std::string& body,
                                       std::int64_t ts = kNow,
                                       const std::string& secret = kSecret) {
  auto signer = Signer::create(SchemeOptions{}, std::vector<std::string>{secret});
  net::HttpHeaders h;
  h.add("Content-Type", "application/json");
  for (auto& x : signer->sign({id, ts, body})) h.add(x.name, x.value);
  return h;
}

class TestIds final : public store::IdGenerator {
 public:
  std::string next(std::string_view prefix) override {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%012lld", static_cast<long long>(++counter_));
    return std::string(prefix) + "_" + buf;
  }

 private:
  std::atomic<long long> counter_{0};
};

inline std::unique_ptr<store::Store> memory_store(Clock& clock, store::IdGenerator& ids) {
  store::sqlite::SqliteOptions opts;
  opts.path = ":memory:";
  auto s = store::sqlite::SqliteStore::open(opts, clock, ids);
  EXPECT_TRUE(s.has_value());
  auto out = std::move(*s);
  EXPECT_TRUE(out->migrate().has_value());
  return out;
}

}  // namespace hookd::inbound::testing
