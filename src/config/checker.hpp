// Internal to hookd_config: a small helper that validate*.cpp use to record problems with
// the key's origin and uniform range messages ("must be between 1s and 1h, got 0").
// Thread-safety: not shared; one per validate() call.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "config/problems.hpp"
#include "config/syntax.hpp"
#include "config/units.hpp"

namespace hookd::config {

class Checker {
 public:
  Checker(const Origins& origins, std::vector<Problem>& out) : origins_(origins), out_(out) {}

  void problem(const std::string& key, std::string message) {
    out_.push_back({key, origins_.of(key), std::move(message)});
  }
  // For keys inside a list value ("auth.tokens[1].name"): the origin is the list's.
  void problem_in(const std::string& list_key, const std::string& key, std::string message) {
    out_.push_back({key, origins_.of(list_key), std::move(message)});
  }
  void problem_under(const std::string& key, std::string message) {
    out_.push_back({key, origins_.first_under(key + ".").value_or("default"), std::move(message)});
  }

  void check(const std::string& key, const Check& result) {
    if (!result) problem(key, result.error());
  }

  void range(const std::string& key, long long value, long long min, long long max) {
    if (value < min || value > max) {
      problem(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) +
                       ", got " + std::to_string(value));
    }
  }
  void range(const std::string& key, Duration value, Duration min, Duration max) {
    if (value < min || value > max) {
      problem(key, "must be between " + quote(format_duration(min)) + " and " +
                       quote(format_duration(max)) + ", got " + quote(format_duration(value)));
    }
  }
  void size_range(const std::string& key, std::uint64_t value, std::uint64_t min,
                  std::uint64_t max) {
    if (value < min || value > max) {
      problem(key, "must be between " + quote(format_size(min)) + " and " +
                       quote(format_size(max)) + ", got " + quote(format_size(value)));
    }
  }

  const Origins& origins() const { return origins_; }

  static std::string quote(const std::string& text) { return "\"" + text + "\""; }

 private:
  const Origins& origins_;
  std::vector<Problem>& out_;
};

// Checks one retry policy; with only_set, only keys that were set explicitly (sources
// inherit the rest from [delivery], which is checked on its own).
void check_retry(Checker& c, const std::string& prefix, const RetryConfig& retry, bool only_set);

// One item of an array-of-tables section, for check_item_names: key = "source[x].name".
struct NamedItem {
  std::string key;
  std::string name;
};

// The names of one section's items ([[source]], [[proxy]]): each valid (check_name), unique,
// and no two with the same environment variables ("a-b" and "a_b"). Empty names were
// reported while reading.
void check_item_names(Checker& c, std::string_view section, const std::vector<NamedItem>& items);

// Checks every [[source]].
void check_sources(Checker& c, const Config& config);

// Checks every [[proxy]].
void check_proxies(Checker& c, const Config& config);

}  // namespace hookd::config
