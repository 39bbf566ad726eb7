// HookdProcess: runs the real `hookd serve` (HOOKD_BINARY) for end-to-end tests, in a fresh
// temporary directory holding its SQLite file, its config file and its stdout/stderr, on
// 127.0.0.1 with port 0 (the chosen port comes back through --port-file). It waits for
// /readyz (bounded), can stop the daemon gracefully (SIGTERM) or kill -9 it, and restart it
// on the same database. No orphans: the destructor kills a daemon still running, and the
// child asks the kernel to SIGKILL it if the test process dies first (PR_SET_PDEATHSIG; the
// fork runs on one process-lifetime thread, since the signal follows the forking THREAD).
// Thread-safety: one instance used by one thread at a time (a test may hand it to another
// thread under its own lock, as A26's killer does).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "e2e/http_call.hpp"

namespace hookd::e2e {

// Short delays so retries happen within a test; loopback allowed for the test receivers.
std::string default_test_config();

struct RunOutput {
  int exit_code = -1;  // -1: killed by a signal or not run
  std::string out;
  std::string err;
};

class HookdProcess {
 public:
  static constexpr const char* kToken = "e2e_test_token_0123456789";

  explicit HookdProcess(std::string config_toml = default_test_config());
  ~HookdProcess();  // kills a running daemon, removes the directory
  HookdProcess(const HookdProcess&) = delete;
  HookdProcess& operator=(const HookdProcess&) = delete;

  // Starts the daemon and waits until /readyz answers 200. False (with the reason in
  // last_error() and the daemon's stderr) when it exits or does not get ready in time.
  bool start(std::chrono::milliseconds ready_within = std::chrono::seconds(20));
  // SIGTERM, then waits for the exit; returns the exit code (-1 after a bound or a signal).
  int stop(std::chrono::milliseconds within = std::chrono::seconds(30));
  // SIGKILL and reap, like a crash.
  void kill9();
  bool running();
  // How the last process reaped by running() ended ("exit 0", "signal 11"), "" if none.
  std::string last_exit() const;

  std::uint16_t port() const { return port_; }
  std::string url(const std::string& path) const;
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path database() const { return dir_ / "hookd.db"; }
  // Runs the daemon on `url` (e.g. postgresql://...) instead of its own SQLite file.
  void use_database(std::string url) { database_url_ = std::move(url); }
  // An extra environment variable for the daemon (e.g. HOOKD_NODE_ID), set before start().
  void set_env(std::string name, std::string value) {
    env_.push_back(std::move(name) + "=" + std::move(value));
  }
  std::filesystem::path config_file() const { return dir_ / "hookd.toml"; }
  std::string stdout_text() const;
  std::string stderr_text() const;
  const std::string& last_error() const { return last_error_; }
  pid_t pid() const { return pid_; }  // -1 when not running

  // API calls with the test token.
  HttpReply get(const std::string& path) const;
  HttpReply post(const std::string& path, const std::string& json_body,
                 std::vector<std::pair<std::string, std::string>> headers = {}) const;
  HttpReply request(const std::string& method, const std::string& path,
                    const std::string& json_body = {},
                    std::vector<std::pair<std::string, std::string>> headers = {}) const;

  // Runs `hookd <args>` to completion (e.g. migrate) with this instance's files.
  RunOutput run_command(const std::vector<std::string>& args) const;

 private:
  bool wait_ready(std::chrono::steady_clock::time_point deadline);

  std::filesystem::path dir_;
  std::string database_url_;      // empty: the SQLite file in dir_
  std::vector<std::string> env_;  // NAME=value added to the inherited environment
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
  int starts_ = 0;
  int last_wait_status_ = -1;  // waitpid status of the last process reaped by running()
  std::string last_error_;
};

}  // namespace hookd::e2e
