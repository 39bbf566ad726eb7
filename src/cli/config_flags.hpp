// The configuration flags `hookd serve` and `hookd migrate` share (--config, --database;
// serve adds --listen and --token) and loading the Config from them: defaults, then the
// TOML file, then HOOKD_* environment variables, then these flags.
// Thread-safety: call from main only.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "config/config.hpp"
#include "config/loader.hpp"

namespace CLI {
class App;
}

namespace hookd::cli {

struct ConfigFlags {
  std::optional<std::string> file;  // --config
  config::Overrides overrides;      // --listen, --database, --token
};

// Adds --config and --database to `command`.
void add_config_flags(CLI::App& command, ConfigFlags& flags);

// Loads and validates; on failure prints every problem to `err` (prefixed with `command`)
// and returns nullopt.
std::optional<config::Config> load_config(const ConfigFlags& flags, const char* command,
                                          std::ostream& err);

}  // namespace hookd::cli
