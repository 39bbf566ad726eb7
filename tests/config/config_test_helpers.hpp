// Helpers the config tests share: loading a TOML text with an environment, and its problems
// as one text. Thread-safety: pure functions.
#pragma once

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "config/loader.hpp"

namespace hookd::config::testing {

using EnvVars = std::initializer_list<std::pair<const std::string, std::string>>;

// A Standard Webhooks secret for configs that need one.
inline constexpr const char* kWhsec = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

inline LoadOutcome load(std::string_view toml, EnvVars env = {}) {
  const MapEnvironment environment(env);
  return load_config_detailed(toml, "hookd.toml", environment, {});
}

// All problems of a load as one text ("" when valid).
inline std::string problems_of(std::string_view toml, EnvVars env = {}) {
  const auto outcome = load(toml, env);
  return outcome.problems.empty() ? "" : format_problems(outcome.problems);
}

}  // namespace hookd::config::testing

#define EXPECT_PROBLEM(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)
