// `hookd migrate`: opens the configured store, creates or upgrades its schema, prints the
// schema version. Exit 0 on success, 1 when the store cannot be opened or migrated, 2 for
// bad flags or configuration.
// Thread-safety: call from main only.
#pragma once

#include <iosfwd>

#include "cli/config_flags.hpp"

namespace CLI {
class App;
}

namespace hookd::cli {

struct MigrateArgs {
  ConfigFlags config;
};

CLI::App* add_migrate_command(CLI::App& app, MigrateArgs& args);

int run_migrate(const MigrateArgs& args, std::ostream& out, std::ostream& err);

}  // namespace hookd::cli
