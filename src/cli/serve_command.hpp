// `hookd serve`: loads the configuration, builds the App (src/app), starts it, prints
// "hookd listening on http://HOST:PORT" (and writes PORT to --port-file, atomically), then
// waits for SIGINT/SIGTERM and stops gracefully. Exit 0 after a signal-driven stop, 1 when
// the daemon cannot start (database, port taken), 2 for bad flags or configuration.
// Thread-safety: call from main only, before any other thread exists (signal mask).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "cli/config_flags.hpp"

namespace CLI {
class App;
}

namespace hookd::cli {

struct ServeArgs {
  ConfigFlags config;
  std::optional<std::string> port_file;
};

CLI::App* add_serve_command(CLI::App& app, ServeArgs& args);

int run_serve(const ServeArgs& args, std::ostream& out, std::ostream& err);

}  // namespace hookd::cli
