#include "store/id_generator.hpp"

#include <openssl/rand.h>

#include <cassert>

#include "hookd/ids.hpp"

namespace hookd::store {

std::string RandomIdGenerator::next(std::string_view prefix) {
  IdRandomBytes random{};
  const int ok = RAND_bytes(random.data(), static_cast<int>(random.size()));
  assert(ok == 1);
  (void)ok;
  return make_id(prefix, clock_.now_ms(), random);
}

}  // namespace hookd::store
