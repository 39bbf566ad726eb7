// Mutator: turns one input into a nearby one (bit flips, interesting bytes, insertions,
// deletions, duplicated runs, dictionary tokens, splices with other corpus entries,
// truncation). Deterministic for a given seed, so a failing run can be repeated.
//
// Thread-safety: one Mutator per thread.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <string>

namespace hookd::fuzz {

class Mutator {
 public:
  static constexpr std::size_t kMaxSize = 64 * 1024;

  explicit Mutator(std::uint64_t seed) : rng_(seed) {}

  // 1–4 stacked mutations of `base`; `corpus` supplies splice partners.
  std::string mutate(const std::string& base, std::span<const std::string> dictionary,
                     std::span<const std::string> corpus);

  std::size_t below(std::size_t n);  // uniform in [0, n); 0 when n == 0

 private:
  void mutate_once(std::string& s, std::span<const std::string> dictionary,
                   std::span<const std::string> corpus);

  std::mt19937_64 rng_;
};

}  // namespace hookd::fuzz
