// RandomIdGenerator: the production IdGenerator — hookd's prefixed, time-sortable ids
// (include/hookd/ids.hpp: "msg_<9 time chars><18 random chars>") from the injected Clock and
// OpenSSL's CSPRNG. Order is creation order even within one millisecond: a new id in the
// same (or an earlier, if the clock stepped back) millisecond reuses the last time and
// increments the last random part by one (ULID-style monotonic), so cursor paging by id never
// skips a row created in the same millisecond.
// Thread-safety: next() may be called from any thread (a mutex guards the last id state);
// the clock and the random source must be safe to call from any thread too.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "hookd/ids.hpp"
#include "store/clock.hpp"

namespace hookd::store {

// Fills fresh random bytes for one id (OpenSSL in the daemon, fixed bytes in tests).
using IdRandomSource = std::function<void(IdRandomBytes&)>;

// OpenSSL's RAND_bytes (aborts if the system RNG fails: nothing sensible can continue).
IdRandomSource system_id_random();

class RandomIdGenerator final : public IdGenerator {
 public:
  // `clock` must outlive the generator.
  explicit RandomIdGenerator(Clock& clock, IdRandomSource random = system_id_random());

  std::string next(std::string_view prefix) override;

 private:
  Clock& clock_;
  IdRandomSource random_;
  std::mutex mu_;
  std::int64_t last_ms_ = -1;
  IdRandomBytes last_random_{};
};

}  // namespace hookd::store
