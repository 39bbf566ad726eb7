// The `hookd` command line: builds the CLI11 app with every subcommand and runs it.
// Thread-safety: call from main only.
#pragma once

namespace hookd::cli {

// Parses argv, runs the chosen subcommand, returns the process exit code.
int run_cli(int argc, char** argv);

}  // namespace hookd::cli
