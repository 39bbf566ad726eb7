// SystemClock and SystemRandom (see system_env.hpp).
#include "env/system_env.hpp"

#include <openssl/rand.h>

#include <chrono>
#include <cstdlib>

namespace hookd::env {

TimePoint SystemClock::now() {
  return std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now());
}

double SystemRandom::uniform01() {
  std::lock_guard lock(mutex_);
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine_);
}

void SystemRandom::fill(std::span<std::uint8_t> out) {
  if (out.empty()) return;
  if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) std::abort();
}

}  // namespace hookd::env
