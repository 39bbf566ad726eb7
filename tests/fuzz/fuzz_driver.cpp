// See fuzz_driver.hpp.
#include "fuzz/fuzz_driver.hpp"

#include <algorithm>
#include <exception>
#include <vector>

#include "fuzz/mutator.hpp"

namespace hookd::fuzz {

namespace {
constexpr std::size_t kMaxCorpus = 256;
constexpr std::size_t kKeepEvery = 16;  // without coverage feedback, keep a sample of mutants
}  // namespace

std::optional<std::string> run_one(const FuzzTarget& target, std::string_view input) {
  try {
    target.run(input);
    return std::nullopt;
  } catch (const FuzzFailure& failure) {
    return std::string("property: ") + failure.what();
  } catch (const std::exception& e) {
    return std::string("exception escaped: ") + e.what();
  } catch (...) {
    return std::string("unknown exception escaped");
  }
}

FuzzRun run_target(const FuzzTarget& target, const FuzzLimits& limits) {
  FuzzRun run;
  const auto deadline = std::chrono::steady_clock::now() + limits.max_time;
  std::vector<std::string> corpus = target.seeds;
  if (corpus.empty()) corpus.emplace_back();
  for (const auto& seed : target.seeds) {
    ++run.executed;
    if (auto what = run_one(target, seed)) {
      run.finding = Finding{seed, *what};
      return run;
    }
  }
  Mutator mutator(limits.seed);
  while (run.executed < limits.iterations && std::chrono::steady_clock::now() < deadline) {
    const auto& base = corpus[mutator.below(corpus.size())];
    std::string input = mutator.mutate(base, target.dictionary, corpus);
    ++run.executed;
    if (auto what = run_one(target, input)) {
      run.finding = Finding{std::move(input), *what};
      return run;
    }
    if (run.executed % kKeepEvery == 0) {
      if (corpus.size() < kMaxCorpus) {
        corpus.push_back(std::move(input));
      } else {
        const std::size_t fixed = std::min(target.seeds.size(), kMaxCorpus - 1);  // seeds stay
        corpus[fixed + mutator.below(kMaxCorpus - fixed)] = std::move(input);
      }
    }
  }
  return run;
}

std::string printable(std::string_view bytes, std::size_t max) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  if (bytes.size() > max) out += "...(" + std::to_string(bytes.size()) + " bytes)";
  return out;
}

}  // namespace hookd::fuzz
