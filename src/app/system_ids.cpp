#include "app/system_ids.hpp"

#include <algorithm>
#include <memory>
#include <random>

namespace hookd::app {
namespace {

// Adds one to the bytes read as a big-endian number; false on overflow (all bytes 0xff).
bool increment(IdRandomBytes& bytes) {
  for (auto it = bytes.rbegin(); it != bytes.rend(); ++it) {
    if (++*it != 0) return true;
  }
  return false;
}

}  // namespace

IdRandomSource make_system_id_random() {
  std::random_device device;
  auto engine = std::make_shared<std::mt19937_64>((static_cast<std::uint64_t>(device()) << 32) ^
                                                  static_cast<std::uint64_t>(device()));
  auto mu = std::make_shared<std::mutex>();
  return [engine, mu](IdRandomBytes& out) {
    std::lock_guard lock(*mu);
    for (std::uint8_t& byte : out) byte = static_cast<std::uint8_t>((*engine)() & 0xff);
  };
}

SystemIdGenerator::SystemIdGenerator(store::Clock& clock, IdRandomSource random)
    : clock_(clock), random_(std::move(random)) {}

std::string SystemIdGenerator::next(std::string_view prefix) {
  const std::int64_t now = std::clamp<std::int64_t>(clock_.now_ms(), 0, kIdMaxUnixMs);
  std::lock_guard lock(mu_);
  if (now > last_ms_) {
    last_ms_ = now;
    random_(last_random_);
  } else if (!increment(last_random_)) {
    // 2^104 ids in one millisecond cannot happen; move to the next millisecond anyway.
    ++last_ms_;
    random_(last_random_);
  }
  return make_id(prefix, last_ms_, last_random_);
}

}  // namespace hookd::app
