// RandomIdGenerator: the production IdGenerator — hookd's prefixed, time-sortable ids
// (include/hookd/ids.hpp) from the injected Clock and OpenSSL's CSPRNG.
// Thread-safety: safe from any thread (the clock must be too; RAND_bytes is).
#pragma once

#include "store/clock.hpp"

namespace hookd::store {

class RandomIdGenerator final : public IdGenerator {
 public:
  explicit RandomIdGenerator(Clock& clock) : clock_(clock) {}
  std::string next(std::string_view prefix) override;

 private:
  Clock& clock_;
};

}  // namespace hookd::store
