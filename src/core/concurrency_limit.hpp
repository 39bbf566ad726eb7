// Per-endpoint concurrency cap (SPEC §3 "Isolation"): counts requests in flight to one
// endpoint so a slow endpoint holds at most `cap` delivery workers, never all of them.
// A cap of 0 means unlimited. Lowering the cap below the current count is allowed: new
// starts are refused until enough requests finish.
// Pure counter. Thread-safety: not thread-safe; the dispatcher owns one per endpoint and
// uses it under its lock.
#pragma once

#include <cassert>
#include <cstdint>

namespace hookd {

class ConcurrencyLimit {
 public:
  explicit ConcurrencyLimit(std::uint32_t cap = 0) : cap_(cap) {}

  bool has_room() const { return cap_ == 0 || in_flight_ < cap_; }

  // Counts one more request in flight if there is room.
  bool try_start() {
    if (!has_room()) return false;
    ++in_flight_;
    return true;
  }

  // One started request ended (whatever its outcome).
  void finish() {
    assert(in_flight_ > 0 && "finish() without a matching try_start()");
    if (in_flight_ > 0) --in_flight_;
  }

  void set_cap(std::uint32_t cap) { cap_ = cap; }
  std::uint32_t cap() const { return cap_; }
  std::uint32_t in_flight() const { return in_flight_; }

 private:
  std::uint32_t cap_;
  std::uint32_t in_flight_ = 0;
};

}  // namespace hookd
