// Fakes of the environment for tests (header-only, usable by anyone): FakeClock is a
// settable clock, starting at 2023-11-14T22:13:20Z unless told otherwise, that runs only when
// set() or advance() moves it and then tells its listeners (e.g. to wake a worker waiting
// for a due time); FakeRandom answers a fixed value or a repeating sequence for uniform01()
// and fills bytes from a counter (1, 2, 3, ...), so "random" secrets and ids are repeatable.
// Thread-safety: every method may be called from any thread; listeners run on the thread
// that moved the clock, after the move, without a lock held.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "hookd/env.hpp"

namespace hookd::env {

class FakeClock final : public Clock {
 public:
  static constexpr std::int64_t kDefaultStartMs = 1'700'000'000'000;

  explicit FakeClock(std::int64_t start_ms = kDefaultStartMs) : now_ms_(start_ms) {}
  explicit FakeClock(TimePoint start) : now_ms_(start.time_since_epoch().count()) {}

  TimePoint now() override { return TimePoint(Duration(now_ms_.load())); }

  void set(std::int64_t ms) {
    now_ms_ = ms;
    notify();
  }
  void set(TimePoint t) { set(t.time_since_epoch().count()); }
  void advance(std::int64_t ms) {
    now_ms_ += ms;
    notify();
  }
  void advance(Duration d) { advance(d.count()); }

  // Called after every set() and advance(). Keep what it captures alive while the clock moves.
  void on_change(std::function<void()> listener) {
    std::lock_guard lock(mutex_);
    listeners_.push_back(std::move(listener));
  }

 private:
  void notify() {
    std::vector<std::function<void()>> listeners;
    {
      std::lock_guard lock(mutex_);
      listeners = listeners_;
    }
    for (const auto& listener : listeners) listener();
  }

  std::atomic<std::int64_t> now_ms_;
  std::mutex mutex_;
  std::vector<std::function<void()>> listeners_;
};

class FakeRandom final : public Random {
 public:
  // uniform01() always answers `value` (0.5: the middle of every jitter range).
  explicit FakeRandom(double value = 0.5) : sequence_{value} {}
  // uniform01() answers the values in turn, then starts again.
  explicit FakeRandom(std::vector<double> sequence) : sequence_(std::move(sequence)) {
    if (sequence_.empty()) sequence_.push_back(0.5);
  }

  double uniform01() override {
    std::lock_guard lock(mutex_);
    const double value = sequence_[next_value_];
    next_value_ = (next_value_ + 1) % sequence_.size();
    return value;
  }
  // Byte after byte from a counter starting at 1 (wrapping at 255 to 0).
  void fill(std::span<std::uint8_t> out) override {
    std::lock_guard lock(mutex_);
    for (auto& b : out) b = next_byte_++;
  }
  void set(double value) {
    std::lock_guard lock(mutex_);
    sequence_ = {value};
    next_value_ = 0;
  }

 private:
  std::mutex mutex_;
  std::vector<double> sequence_;
  std::size_t next_value_ = 0;
  std::uint8_t next_byte_ = 1;
};

}  // namespace hookd::env
