// See mutator.hpp.
#include "fuzz/mutator.hpp"

#include <array>
#include <string_view>

namespace hookd::fuzz {

namespace {

constexpr std::array<char, 18> kInterestingBytes = {'\0', '\x7f', '\xff', '\x80', '"', '\\',
                                                    '{',  '}',    '[',    ']',    ',', ':',
                                                    '=',  '.',    '%',    '\n',   ' ', '-'};

constexpr std::array<std::string_view, 10> kInterestingNumbers = {
    "0",  "-1",  "4294967296", "9223372036854775807", "99999999999999999999999", "1e309",
    "-0", "NaN", "0x10",       "2147483648"};

}  // namespace

std::size_t Mutator::below(std::size_t n) {
  if (n == 0) return 0;
  return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
}

std::string Mutator::mutate(const std::string& base, std::span<const std::string> dictionary,
                            std::span<const std::string> corpus) {
  std::string s = base;
  const std::size_t rounds = 1 + below(4);
  for (std::size_t i = 0; i < rounds; ++i) mutate_once(s, dictionary, corpus);
  if (s.size() > kMaxSize) s.resize(kMaxSize);
  return s;
}

void Mutator::mutate_once(std::string& s, std::span<const std::string> dictionary,
                          std::span<const std::string> corpus) {
  const std::size_t pos = below(s.size() + 1);
  switch (below(10)) {
    case 0:  // flip one bit
      if (!s.empty()) s[pos % s.size()] ^= static_cast<char>(1u << below(8));
      break;
    case 1:  // replace a byte with an interesting one
      if (!s.empty()) s[pos % s.size()] = kInterestingBytes[below(kInterestingBytes.size())];
      break;
    case 2: {  // insert a few random bytes
      const std::size_t n = 1 + below(8);
      std::string run;
      for (std::size_t i = 0; i < n; ++i) run.push_back(static_cast<char>(below(256)));
      s.insert(pos, run);
      break;
    }
    case 3: {  // erase a range
      const std::size_t n = 1 + below(16);
      if (pos < s.size()) s.erase(pos, n);
      break;
    }
    case 4: {  // duplicate a range (grows nesting and repetition)
      if (s.empty()) break;
      const std::size_t from = below(s.size());
      const std::size_t n = 1 + below(std::min<std::size_t>(s.size() - from, 64));
      s.insert(pos, s.substr(from, n));
      break;
    }
    case 5:  // insert a dictionary token
      if (!dictionary.empty()) s.insert(pos, dictionary[below(dictionary.size())]);
      break;
    case 6: {  // overwrite with a dictionary token
      if (dictionary.empty()) break;
      const auto& token = dictionary[below(dictionary.size())];
      s.replace(std::min(pos, s.size()), token.size(), token);
      break;
    }
    case 7:  // insert an interesting number
      s.insert(pos, kInterestingNumbers[below(kInterestingNumbers.size())]);
      break;
    case 8: {  // splice: our prefix + another entry's suffix
      if (corpus.empty()) break;
      const auto& other = corpus[below(corpus.size())];
      s = s.substr(0, pos) + other.substr(below(other.size() + 1));
      break;
    }
    default:  // truncate
      s.resize(pos);
      break;
  }
}

}  // namespace hookd::fuzz
