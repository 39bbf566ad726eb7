#include "e2e/hookd_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

namespace hookd::e2e {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

std::filesystem::path make_temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "hookd-e2e-XXXXXX").string();
  const char* made = ::mkdtemp(pattern.data());
  if (made == nullptr) std::abort();  // no temp dir: nothing sensible a test can do
  return made;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// In the child: die with the parent, send output to the files, exec hookd.
[[noreturn]] void exec_hookd(pid_t parent, const std::vector<std::string>& args,
                             const std::filesystem::path& out, const std::filesystem::path& err,
                             char* const* envp) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
  const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (out_fd < 0 || err_fd < 0) ::_exit(127);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  // The test binary blocks no signals we care about, but reset the mask to be sure.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  std::vector<char*> argv;
  static std::string binary = HOOKD_BINARY;
  argv.push_back(binary.data());
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  ::execve(binary.c_str(), argv.data(), envp);
  ::_exit(127);
}

// Runs fork() on one thread that lives as long as the test process. PR_SET_PDEATHSIG fires
// when the THREAD that forked the child exits, not the process: a daemon started from a
// short-lived thread (a test's "killer" thread restarting nodes) would be SIGKILLed the
// moment that thread ends.
class Forker {
 public:
  static Forker& instance() {
    static Forker* forker = new Forker();  // never destroyed: its thread outlives every test
    return *forker;
  }
  pid_t run(const std::function<pid_t()>& fork_child) {
    std::packaged_task<pid_t()> task(fork_child);
    auto result = task.get_future();
    {
      std::lock_guard lock(mu_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
    return result.get();
  }

 private:
  Forker() {
    std::thread([this] {
      while (true) {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return !tasks_.empty(); });
        auto task = std::move(tasks_.front());
        tasks_.pop_front();
        lock.unlock();
        task();
      }
    }).detach();
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::packaged_task<pid_t()>> tasks_;
};

// `extra_env`: NAME=value entries added to this process's environment for the child (built
// before fork: the child only execs).
pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& out,
            const std::filesystem::path& err, const std::vector<std::string>& extra_env = {}) {
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  for (const std::string& e : extra_env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  return Forker::instance().run([&] {
    const pid_t pid = ::fork();
    if (pid == 0) exec_hookd(parent, args, out, err, envp.data());
    return pid;
  });
}

int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

}  // namespace

std::string default_test_config() {
  return R"([server]
shutdown_grace = "5s"

[delivery]
connect_timeout = "500ms"
timeout = "2s"
max_attempts = 6
schedule = ["100ms", "200ms", "300ms"]
lease_duration = "3s"
poll_interval = "100ms"
circuit_failure_threshold = 0

[ssrf]
allowed_subnets = ["127.0.0.0/8"]

[logging]
level = "info"
)";
}

HookdProcess::HookdProcess(std::string config_toml) : dir_(make_temp_dir()) {
  std::ofstream(config_file()) << config_toml;
}

HookdProcess::~HookdProcess() {
  if (pid_ > 0) kill9();
  std::error_code ignored;
  if (std::getenv("HOOKD_E2E_KEEP") == nullptr) std::filesystem::remove_all(dir_, ignored);
}

bool HookdProcess::start(std::chrono::milliseconds ready_within) {
  if (pid_ > 0) return true;
  const std::filesystem::path port_file = dir_ / "port";
  std::filesystem::remove(port_file);  // a stale one from a killed run
  port_ = 0;
  ++starts_;
  const std::string db = database_url_.empty() ? database().string() : database_url_;
  pid_ = spawn({"serve", "--config", config_file().string(), "--database", db, "--listen",
                "127.0.0.1:0", "--token", kToken, "--port-file", port_file.string()},
               dir_ / "hookd.out", dir_ / "hookd.err", env_);
  if (pid_ < 0) {
    last_error_ = "fork failed";
    return false;
  }
  return wait_ready(Clock::now() + ready_within);
}

bool HookdProcess::wait_ready(Clock::time_point deadline) {
  const std::filesystem::path port_file = dir_ / "port";
  while (Clock::now() < deadline) {
    if (!running()) {
      last_error_ = "hookd exited before it was ready; stderr:\n" + stderr_text();
      return false;
    }
    if (port_ == 0 && std::filesystem::exists(port_file)) {
      port_ = static_cast<std::uint16_t>(std::stoi(read_file(port_file)));
    }
    if (port_ != 0 && http_get(url("/readyz"), {}, 1s).status == 200) return true;
    std::this_thread::sleep_for(20ms);  // bounded by `deadline`; nothing to wait on instead
  }
  last_error_ = "hookd not ready in time; stderr:\n" + stderr_text();
  return false;
}

int HookdProcess::stop(std::chrono::milliseconds within) {
  if (pid_ <= 0) return -1;
  const pid_t pid = pid_;
  ::kill(pid, SIGTERM);
  int status = 0;
  const auto deadline = Clock::now() + within;
  while (Clock::now() < deadline) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      pid_ = -1;
      return exit_code_of(status);
    }
    std::this_thread::sleep_for(10ms);
  }
  kill9();
  return -1;
}

void HookdProcess::kill9() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

bool HookdProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    last_wait_status_ = status;
    return false;
  }
  return true;
}

std::string HookdProcess::last_exit() const {
  if (last_wait_status_ < 0) return "";
  if (WIFSIGNALED(last_wait_status_))
    return "signal " + std::to_string(WTERMSIG(last_wait_status_));
  return "exit " + std::to_string(exit_code_of(last_wait_status_));
}

std::string HookdProcess::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

std::string HookdProcess::stdout_text() const { return read_file(dir_ / "hookd.out"); }
std::string HookdProcess::stderr_text() const { return read_file(dir_ / "hookd.err"); }

HttpReply HookdProcess::get(const std::string& path) const {
  return http_get(url(path), {{"Authorization", std::string("Bearer ") + kToken}});
}

HttpReply HookdProcess::post(const std::string& path, const std::string& json_body,
                             std::vector<std::pair<std::string, std::string>> headers) const {
  return request("POST", path, json_body, std::move(headers));
}

HttpReply HookdProcess::request(const std::string& method, const std::string& path,
                                const std::string& json_body,
                                std::vector<std::pair<std::string, std::string>> headers) const {
  headers.emplace_back("Authorization", std::string("Bearer ") + kToken);
  if (!json_body.empty()) headers.emplace_back("Content-Type", "application/json");
  return http_request(method, url(path), json_body, std::move(headers));
}

RunOutput HookdProcess::run_command(const std::vector<std::string>& args) const {
  const auto out = dir_ / "command.out";
  const auto err = dir_ / "command.err";
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  const pid_t pid = spawn(args, out, err);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {exit_code_of(status), read_file(out), read_file(err)};
}

}  // namespace hookd::e2e
