// OutcomeWindow: how many attempts to one endpoint ended, and how many of them failed, over
// the last `length` of time — the circuit breaker's failure-rate window (SPEC §3
// "Isolation"). Ten buckets of length/10 each (a ring), so the rate forgets old outcomes in
// steps of a tenth of the window; each bucket keeps the time of its first outcome, so span()
// (how long the counted outcomes have been going on) is exact.
//
// Pure: time is a parameter. Thread-safety: not thread-safe; owned by one CircuitBreaker.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "hookd/retry.hpp"  // TimePoint, Duration

namespace hookd {

struct WindowTotals {
  int attempts = 0;
  int failures = 0;
};

class OutcomeWindow {
 public:
  static constexpr int kBuckets = 10;

  explicit OutcomeWindow(Duration length);

  void add(TimePoint now, bool failed);
  void clear();

  // The outcomes recorded in (now - length, now] (to bucket precision).
  WindowTotals totals(TimePoint now) const;
  // now minus the first of those outcomes; zero when there are none.
  Duration span(TimePoint now) const;

 private:
  struct Bucket {
    std::int64_t index = -1;  // which bucket of time (t / width) it holds; -1 = empty
    TimePoint first{};
    int attempts = 0;
    int failures = 0;
  };

  std::int64_t index_of(TimePoint t) const;
  bool live(const Bucket& bucket, TimePoint now) const;

  Duration width_;
  std::array<Bucket, kBuckets> buckets_{};
};

}  // namespace hookd
