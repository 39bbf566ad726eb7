#include "cli/cli.hpp"

#include <CLI/CLI.hpp>

namespace hookd::cli {

int run_cli(int argc, char** argv) {
  CLI::App app{"hookd: webhooks and callbacks that cannot be lost silently"};
  app.require_subcommand(0, 1);
  CLI11_PARSE(app, argc, argv);
  if (app.get_subcommands().empty()) {
    std::fputs(app.help().c_str(), stdout);
  }
  return 0;
}

}  // namespace hookd::cli
