// Problems found while loading or validating a config, and where each value came from,
// so every message names the key, its origin (file line, environment variable or flag),
// what is wrong and what is allowed. Values of secret keys are never put in a message.
// Thread-safety: plain value types; not for concurrent mutation.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hookd::config {

struct Problem {
  std::string key;     // full dotted path: "server.listen", "source[stripe].forward.url"
  std::string origin;  // "hookd.toml line 12", "env HOOKD_SERVER_LISTEN", "flag --listen", ...
  std::string message;
};

// Dotted key -> where its current value came from. A key absent here has its default.
class Origins {
 public:
  void set(std::string key, std::string origin) { origins_[std::move(key)] = std::move(origin); }
  bool has(const std::string& key) const { return origins_.contains(key); }
  // The origin of the first key that starts with `prefix`, if any ("source[x].hmac.").
  std::optional<std::string> first_under(std::string_view prefix) const {
    const auto it = origins_.lower_bound(prefix);
    if (it == origins_.end() || !it->first.starts_with(prefix)) return std::nullopt;
    return it->second;
  }
  // "default" for keys that were not set anywhere.
  std::string of(const std::string& key) const {
    const auto it = origins_.find(key);
    return it == origins_.end() ? "default" : it->second;
  }

 private:
  std::map<std::string, std::string, std::less<>> origins_;
};

class Problems {
 public:
  void add(std::string key, std::string origin, std::string message) {
    list_.push_back({std::move(key), std::move(origin), std::move(message)});
  }
  bool empty() const { return list_.empty(); }
  const std::vector<Problem>& list() const { return list_; }

 private:
  std::vector<Problem> list_;
};

// One line per problem: "server.listen (env HOOKD_SERVER_LISTEN): port must be 0-65535 ...".
std::string format_problem(const Problem& problem);
// "invalid configuration (2 problems):\n  <problem>\n  <problem>".
std::string format_problems(const std::vector<Problem>& problems);

// The candidate closest to `word` by edit distance when it is close enough to be a typo,
// else "". For "did you mean ...?" hints.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace hookd::config
