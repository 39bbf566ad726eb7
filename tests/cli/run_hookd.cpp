#include "cli/run_hookd.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>

namespace hookd::cli::testing {
namespace {

// Single-quoted for /bin/sh. (Appends instead of operator+, which trips g++ 12's
// -Wrestrict false positive.)
std::string shell_quote(const std::string& arg) {
  std::string quoted(1, '\'');
  for (char c : arg) {
    if (c == '\'') {
      quoted.append("'\\''");
    } else {
      quoted.push_back(c);
    }
  }
  quoted.push_back('\'');
  return quoted;
}

std::string read_all(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

}  // namespace

HookdRunner::HookdRunner() {
  std::random_device random;
  dir_ = std::filesystem::temp_directory_path() /
         ("hookd-cli-test-" + std::to_string(random()) + std::to_string(random()));
  std::filesystem::create_directories(dir_);
}

HookdRunner::~HookdRunner() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

RunResult HookdRunner::run(const std::vector<std::string>& args, const std::string& input) const {
  const std::string in = write_file("stdin", input);
  std::string command = shell_quote(HOOKD_BINARY);
  for (const std::string& arg : args) command.append(" ").append(shell_quote(arg));
  command.append(" <").append(shell_quote(in));
  command.append(" >").append(shell_quote((dir_ / "stdout").string()));
  command.append(" 2>").append(shell_quote((dir_ / "stderr").string()));
  const int status = std::system(command.c_str());
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_all(dir_ / "stdout");
  result.err = read_all(dir_ / "stderr");
  return result;
}

std::string HookdRunner::write_file(const std::string& name, const std::string& bytes) const {
  const std::filesystem::path path = dir_ / name;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file) throw std::runtime_error("cannot write " + path.string());
  return path.string();
}

HttpHeaders parse_header_lines(const std::string& text) {
  HttpHeaders headers;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const auto colon = line.find(": ");
    if (colon == std::string::npos) throw std::runtime_error("not a header line: " + line);
    headers.push_back({line.substr(0, colon), line.substr(colon + 2)});
  }
  return headers;
}

std::string request_json(const HttpHeaders& headers, const std::string& body) {
  nlohmann::json request{{"headers", nlohmann::json::object()}, {"body", body}};
  for (const HttpHeader& header : headers) request["headers"][header.name] = header.value;
  return request.dump();
}

}  // namespace hookd::cli::testing
