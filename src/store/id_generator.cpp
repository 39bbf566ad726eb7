#include "store/id_generator.hpp"

#include <algorithm>

namespace hookd::store {
namespace {

// Adds one to the bytes read as a big-endian number; false on overflow (all bytes 0xff).
bool increment(IdRandomBytes& bytes) {
  for (auto it = bytes.rbegin(); it != bytes.rend(); ++it) {
    if (++*it != 0) return true;
  }
  return false;
}

}  // namespace

RandomIdGenerator::RandomIdGenerator(Clock& clock, Random& random)
    : clock_(clock), random_(random) {}

std::string RandomIdGenerator::next(std::string_view prefix) {
  const std::int64_t now = std::clamp<std::int64_t>(clock_.now_ms(), 0, kIdMaxUnixMs);
  std::lock_guard lock(mu_);
  if (now > last_ms_) {
    last_ms_ = now;
    random_.fill(last_random_);
  } else if (!increment(last_random_)) {
    // 2^104 ids in one millisecond cannot happen; move to the next millisecond anyway.
    ++last_ms_;
    random_.fill(last_random_);
  }
  return make_id(prefix, last_ms_, last_random_);
}

}  // namespace hookd::store
