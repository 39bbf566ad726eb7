// SystemIdGenerator: the daemon's store::IdGenerator. Ids are hookd::make_id() values
// ("msg_<9 time chars><18 random chars>") whose order is creation order even within one
// millisecond: a new id in the same (or an earlier, if the clock stepped back) millisecond
// reuses the last time and increments the last random part by one (ULID-style monotonic),
// so cursor paging by id never skips a row created in the same millisecond.
// Thread-safety: next() may be called from any thread (a mutex guards the last id state).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "hookd/ids.hpp"
#include "store/clock.hpp"

namespace hookd::app {

// Fills fresh random bytes for one id (a seeded engine in the daemon, fixed bytes in tests).
using IdRandomSource = std::function<void(IdRandomBytes&)>;

// A random source seeded once from std::random_device.
IdRandomSource make_system_id_random();

class SystemIdGenerator final : public store::IdGenerator {
 public:
  // `clock` must outlive the generator.
  SystemIdGenerator(store::Clock& clock, IdRandomSource random);

  std::string next(std::string_view prefix) override;

 private:
  store::Clock& clock_;
  IdRandomSource random_;
  std::mutex mu_;
  std::int64_t last_ms_ = -1;
  IdRandomBytes last_random_{};
};

}  // namespace hookd::app
