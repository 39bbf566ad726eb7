// The daemon's environment, like leveldb's Env: the two reads of the outside world that are
// not I/O ports of their own — wall time (Clock) and randomness (Random). Every module takes
// them as `hookd::Clock&` / `hookd::Random&`; the composition root makes one of each
// (src/env/system_env.hpp), tests use src/env/fake_env.hpp. Pure interfaces, no I/O here.
// Thread-safety: implementations must be callable from any thread at any time.
#pragma once

#include <cstdint>
#include <span>

#include "hookd/time.hpp"

namespace hookd {

class Clock {
 public:
  virtual ~Clock() = default;
  // Unix time (system clock), milliseconds.
  virtual TimePoint now() = 0;
  std::int64_t now_ms() { return now().time_since_epoch().count(); }
};

class Random {
 public:
  virtual ~Random() = default;
  // Uniform in [0, 1): jitter samples (retry backoff, circuit cool-downs).
  virtual double uniform01() = 0;
  // Cryptographically strong bytes: secrets and ids.
  virtual void fill(std::span<std::uint8_t> out) = 0;
};

}  // namespace hookd
