#include "cli/migrate_command.hpp"

#include <CLI/CLI.hpp>
#include <ostream>

#include "app/store_factory.hpp"
#include "cli/exit_codes.hpp"
#include "env/system_env.hpp"
#include "store/id_generator.hpp"

namespace hookd::cli {

CLI::App* add_migrate_command(CLI::App& app, MigrateArgs& args) {
  CLI::App* migrate = app.add_subcommand("migrate", "Create or upgrade the database schema");
  add_config_flags(*migrate, args.config);
  migrate->footer(
      "\nSafe to run at any time and repeatedly; `hookd serve` also migrates at start.\n"
      "Prints \"schema version N\". Exit status: 0 done, 1 database error, 2 bad flags or "
      "configuration.");
  return migrate;
}

int run_migrate(const MigrateArgs& args, std::ostream& out, std::ostream& err) {
  const auto config = load_config(args.config, "migrate", err);
  if (!config) return kExitUsage;
  env::SystemClock clock;
  env::SystemRandom random;
  store::RandomIdGenerator ids(clock, random);
  auto store = app::open_store(config->database, clock, ids);
  if (!store) {
    err << "hookd migrate: cannot open the database: " << store.error().message << '\n';
    return kExitInvalid;
  }
  if (auto migrated = (*store)->migrate(); !migrated) {
    err << "hookd migrate: " << migrated.error().message << '\n';
    return kExitInvalid;
  }
  auto version = (*store)->schema_version();
  if (!version) {
    err << "hookd migrate: " << version.error().message << '\n';
    return kExitInvalid;
  }
  out << "schema version " << *version << '\n';
  return kExitOk;
}

}  // namespace hookd::cli
