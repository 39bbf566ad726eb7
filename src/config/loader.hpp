// Loads hookd's Config: defaults, then the TOML file, then HOOKD_* environment variables,
// then command-line flags (later wins), then validates the result.
//
//   auto config = load_config_file("hookd.toml", ProcessEnvironment{}, overrides);
//   if (!config) { print(config.error().message); return 2; }
//
// On failure the Error (kInvalidArgument; kNotFound if the file cannot be read) carries
// ALL problems found, one per line, each naming the key, where the value came from and
// what is allowed; secret values are never included. docs/configuration.md lists the keys.
// Thread-safety: reentrant; reads only its arguments (and the file).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "config/config.hpp"
#include "config/environment.hpp"
#include "config/problems.hpp"
#include "hookd/result.hpp"

namespace hookd::config {

// The flags `hookd serve` offers for the most common keys; unset = no override.
struct Overrides {
  std::optional<std::string> listen;    // --listen    -> server.listen
  std::optional<std::string> database;  // --database  -> database.url
  std::optional<std::string> token;     // --token     -> auth.tokens = [{name="cli", token}]
};

// With no file (nullopt) only defaults, environment and flags apply.
Result<Config> load_config_file(const std::optional<std::filesystem::path>& file,
                                const Environment& env, const Overrides& flags = {});

// The same from TOML text; `label` names it in messages ("<label> line 3").
Result<Config> load_config_string(std::string_view toml_text, const Environment& env,
                                  const Overrides& flags = {}, std::string_view label = "config");

// The same, returning the problems as a list (empty = valid) next to the Config that was
// built; for tests and tools that show problems their own way.
struct LoadOutcome {
  Config config;
  Origins origins;
  std::vector<Problem> problems;
};
LoadOutcome load_config_detailed(std::optional<std::string_view> toml_text, std::string_view label,
                                 const Environment& env, const Overrides& flags);

}  // namespace hookd::config
