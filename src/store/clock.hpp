// The two sources of nondeterminism the Store needs, behind interfaces so tests can use
// fakes: a Clock returning Unix milliseconds and an IdGenerator returning time-sortable,
// prefixed ids (`app_...`). Thread-safety: implementations must be safe to call from any
// thread (the Store calls them under its own locks, from several threads).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace hookd::store {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::int64_t now_ms() = 0;
};

class IdGenerator {
 public:
  virtual ~IdGenerator() = default;
  // A new unique id "<prefix>_<time-sortable suffix>", e.g. next("msg") -> "msg_2Kx...".
  // Ids generated later must sort after ids generated earlier (byte-wise).
  virtual std::string next(std::string_view prefix) = 0;
};

// The real clock (system time).
class SystemClock final : public Clock {
 public:
  std::int64_t now_ms() override {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  }
};

}  // namespace hookd::store
