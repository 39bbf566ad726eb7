// IdGenerator: the Store's source of new ids, "<prefix>_<time-sortable suffix>" (`app_...`),
// behind an interface so tests can use fakes. RandomIdGenerator is the production one —
// hookd's prefixed, time-sortable ids (include/hookd/ids.hpp: "msg_<9 time chars><18 random
// chars>") from the injected Clock and Random (its cryptographic fill()). Order is creation
// order even within one millisecond: a new id in the same (or an earlier, if the clock stepped
// back) millisecond reuses the last time and increments the last random part by one
// (ULID-style monotonic), so cursor paging by id never skips a row created in the same
// millisecond.
// Thread-safety: implementations must be safe to call from any thread (the Store calls them
// under its own locks, from several threads); RandomIdGenerator guards its last id state with
// a mutex; the clock and the random source must be safe to call from any thread too.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "hookd/env.hpp"
#include "hookd/ids.hpp"

namespace hookd::store {

class IdGenerator {
 public:
  virtual ~IdGenerator() = default;
  // A new unique id "<prefix>_<time-sortable suffix>", e.g. next("msg") -> "msg_2Kx...".
  // Ids generated later must sort after ids generated earlier (byte-wise).
  virtual std::string next(std::string_view prefix) = 0;
};

class RandomIdGenerator final : public IdGenerator {
 public:
  // `clock` and `random` must outlive the generator.
  RandomIdGenerator(Clock& clock, Random& random);

  std::string next(std::string_view prefix) override;

 private:
  Clock& clock_;
  Random& random_;
  std::mutex mu_;
  std::int64_t last_ms_ = -1;
  IdRandomBytes last_random_{};
};

}  // namespace hookd::store
