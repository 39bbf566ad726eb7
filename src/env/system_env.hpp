// The real environment: SystemClock reads the system (wall) clock; SystemRandom draws
// cryptographic bytes from OpenSSL's CSPRNG (RAND_bytes) and jitter samples from a
// mt19937_64 seeded by std::random_device. The composition root makes one of each.
// Thread-safety: both may be called from any thread (SystemRandom locks its engine).
#pragma once

#include <cstdint>
#include <mutex>
#include <random>
#include <span>

#include "hookd/env.hpp"

namespace hookd::env {

class SystemClock final : public Clock {
 public:
  TimePoint now() override;
};

class SystemRandom final : public Random {
 public:
  double uniform01() override;
  // Aborts if the system RNG fails: nothing sensible can continue without it.
  void fill(std::span<std::uint8_t> out) override;

 private:
  std::mutex mutex_;
  std::mt19937_64 engine_{std::random_device{}()};
};

}  // namespace hookd::env
