#include "cli/config_flags.hpp"

#include <CLI/CLI.hpp>
#include <ostream>

#include "config/environment.hpp"

namespace hookd::cli {

void add_config_flags(CLI::App& command, ConfigFlags& flags) {
  command
      .add_option_function<std::string>(
          "--config", [&flags](const std::string& file) { flags.file = file; },
          "TOML configuration file (docs/configuration.md); HOOKD_* variables and flags "
          "override it")
      ->type_name("FILE");
  command
      .add_option_function<std::string>(
          "--database", [&flags](const std::string& url) { flags.overrides.database = url; },
          "SQLite database file or postgresql://... URL (database.url; default ./hookd.db)")
      ->type_name("PATH");
}

std::optional<config::Config> load_config(const ConfigFlags& flags, const char* command,
                                          std::ostream& err) {
  std::optional<std::filesystem::path> file;
  if (flags.file) file = *flags.file;
  auto loaded = config::load_config_file(file, config::ProcessEnvironment{}, flags.overrides);
  if (!loaded) {
    err << "hookd " << command << ": invalid configuration:\n" << loaded.error().message << '\n';
    return std::nullopt;
  }
  return std::move(*loaded);
}

}  // namespace hookd::cli
