// `hookd sign`: prints the signature headers for a body, one "name: value" per line.
// Thread-safety: call from main only.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "cli/scheme_flags.hpp"
#include "hookd/signing.hpp"

namespace CLI {
class App;
}

namespace hookd::cli {

struct SignArgs {
  SchemeFlags scheme;
  std::optional<std::string> id;          // default: a fresh msg_ id
  std::optional<std::int64_t> timestamp;  // default: now
  std::string body_file;                  // "-" = standard input
};

// Registers the `sign` subcommand; parsing fills `args`.
CLI::App* add_sign_command(CLI::App& app, SignArgs& args);

// Signs and writes the headers to `out`; problems go to `err`. Returns the exit code.
int run_sign(const SignArgs& args, std::ostream& out, std::ostream& err);

// "name: value\n" per header, in order.
std::string format_headers(const HttpHeaders& headers);

}  // namespace hookd::cli
