// Runs the real hookd binary (HOOKD_BINARY, set by CMake) for end-to-end CLI tests, and
// gives each test a scratch directory for its input files.
// Thread-safety: one instance per test; not shared.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "hookd/signing.hpp"

namespace hookd::cli::testing {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class HookdRunner {
 public:
  HookdRunner();   // creates a fresh scratch directory
  ~HookdRunner();  // removes it
  HookdRunner(const HookdRunner&) = delete;
  HookdRunner& operator=(const HookdRunner&) = delete;

  // Runs `hookd args...` with `input` on standard input.
  RunResult run(const std::vector<std::string>& args, const std::string& input = "") const;

  // Writes `bytes` to a file in the scratch directory and returns its path.
  std::string write_file(const std::string& name, const std::string& bytes) const;

 private:
  std::filesystem::path dir_;
};

// Parses `hookd sign` output ("name: value" lines).
HttpHeaders parse_header_lines(const std::string& text);

// The request-file JSON for these headers and body.
std::string request_json(const HttpHeaders& headers, const std::string& body);

}  // namespace hookd::cli::testing
