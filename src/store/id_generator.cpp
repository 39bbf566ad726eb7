#include "store/id_generator.hpp"

#include <openssl/rand.h>

#include <algorithm>
#include <cstdlib>

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

IdRandomSource system_id_random() {
  return [](IdRandomBytes& out) {
    if (RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) std::abort();
  };
}

RandomIdGenerator::RandomIdGenerator(Clock& clock, IdRandomSource random)
    : clock_(clock), random_(std::move(random)) {}

std::string RandomIdGenerator::next(std::string_view prefix) {
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

}  // namespace hookd::store
