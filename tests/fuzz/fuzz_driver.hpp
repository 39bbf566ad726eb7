// The fuzz loop: runs a target on its seeds, then on mutants of a growing corpus, until an
// iteration count or a time limit is reached or a property fails. Used by the smoke test
// (fixed seed, few thousand iterations, in the sanitizer build) and by `hookd_fuzz`
// (longer runs, `make fuzz`).
//
// Thread-safety: run_target is not reentrant for the same target (targets keep state).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz/fuzz_target.hpp"

namespace hookd::fuzz {

struct Finding {
  std::string input;  // the bytes that broke a property
  std::string what;   // which property, from FuzzFailure or the escaping exception
};

struct FuzzLimits {
  std::size_t iterations = 1000;
  std::chrono::milliseconds max_time{60'000};
  std::uint64_t seed = 1;
};

struct FuzzRun {
  std::size_t executed = 0;
  std::optional<Finding> finding;
};

// Runs one input; the failure text when a property broke or an exception escaped.
std::optional<std::string> run_one(const FuzzTarget& target, std::string_view input);

FuzzRun run_target(const FuzzTarget& target, const FuzzLimits& limits);

// "\x00" style escaping of non-printable bytes, for messages.
std::string printable(std::string_view bytes, std::size_t max = 200);

}  // namespace hookd::fuzz
