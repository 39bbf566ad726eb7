#include "config/problems.hpp"

#include <algorithm>
#include <cctype>

namespace hookd::config {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string format_problem(const Problem& problem) {
  std::string line = problem.key;
  if (!problem.origin.empty()) line += " (" + problem.origin + ")";
  return line + ": " + problem.message;
}

std::string format_problems(const std::vector<Problem>& problems) {
  std::string out = "invalid configuration (" + std::to_string(problems.size()) +
                    (problems.size() == 1 ? " problem):" : " problems):");
  for (const auto& problem : problems) out += "\n  " + format_problem(problem);
  return out;
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace hookd::config
