// Helpers the end-to-end test files share: bounded polling (never a fixed sleep as an
// assertion), a hookd configuration with short delivery delays built from key overrides, and
// an arrival log that timestamps every request a TestReceiver sees (for backoff, FIFO and
// rate measurements).
// Thread-safety: ArrivalLog may be written from receiver threads and read from the test
// thread; the rest is used from the test thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hookd/signing.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e {

using Steady = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

// Polls `done` every `step` until it holds or `within` has passed; returns its last value.
inline bool eventually(const std::function<bool()>& done, Millis within = Millis(20'000),
                       Millis step = Millis(20)) {
  const auto deadline = Steady::now() + within;
  while (!done()) {
    if (Steady::now() >= deadline) return false;
    std::this_thread::sleep_for(step);
  }
  return true;
}

// The [delivery] section of default_test_config() with `overrides` applied (TOML values as
// written, e.g. {"max_attempts", "3"}, {"schedule", R"(["100ms"])"}; an empty value removes
// the key). `allow_loopback` adds [ssrf] allowed_subnets = ["127.0.0.0/8"].
std::string test_config(const std::map<std::string, std::string>& overrides,
                        bool allow_loopback = true);

// A received request's headers as the signing library's verifier takes them.
// Whole milliseconds from `from` to `to`.
inline std::int64_t ms_between(Steady::time_point from, Steady::time_point to) {
  return std::chrono::duration_cast<Millis>(to - from).count();
}

inline HttpHeaders headers_of(const testing::ReceivedRequest& request) {
  HttpHeaders headers;
  for (const auto& [name, value] : request.headers) headers.push_back({name, value});
  return headers;
}

struct Arrival {
  std::string webhook_id;
  std::string path;
  std::string body;
  Steady::time_point at;
};

// Records each request's arrival, then answers what `script` says (200 without a script).
class ArrivalLog {
 public:
  using Script = std::function<testing::ReceiverBehavior(const testing::ReceivedRequest&)>;

  // Installs a handler on `receiver` that records and then asks `script`.
  void attach(testing::TestReceiver& receiver, Script script = {});

  std::vector<Arrival> all() const;
  std::vector<Steady::time_point> times_of(const std::string& webhook_id) const;
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::vector<Arrival> arrivals_;
};

}  // namespace hookd::e2e
