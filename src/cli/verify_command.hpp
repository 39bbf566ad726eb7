// `hookd verify`: checks the signature of a captured request (see request_file.hpp).
// Exit 0 and "ok" when valid; 1 with "<reason_code>: <detail>" on stderr when not; 2 for
// usage or input errors.
// Thread-safety: call from main only.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "cli/scheme_flags.hpp"

namespace CLI {
class App;
}

namespace hookd::cli {

struct VerifyArgs {
  SchemeFlags scheme;
  std::string request_file;  // "-" = standard input
  std::int64_t tolerance_seconds = 300;
  std::optional<std::int64_t> now;  // default: the system clock
};

// Registers the `verify` subcommand; parsing fills `args`.
CLI::App* add_verify_command(CLI::App& app, VerifyArgs& args);

// Verifies; "ok" to `out`, reasons to `err`. Returns the exit code.
int run_verify(const VerifyArgs& args, std::ostream& out, std::ostream& err);

}  // namespace hookd::cli
