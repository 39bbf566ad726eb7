// Reads a process's threads from /proc (Linux): name → nice level of each thread with that
// name. Used to check that hookd names its threads and lowers the forwarding ones.
// Thread-safety: stateless; reads /proc at the time of the call.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace hookd::testing {

inline std::map<std::string, std::vector<int>> thread_nice_levels(pid_t pid) {
  std::map<std::string, std::vector<int>> out;
  std::error_code ec;
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    std::string name;
    std::getline(std::ifstream(task.path() / "comm"), name);
    std::string stat;
    std::getline(std::ifstream(task.path() / "stat"), stat);
    // Fields after the ")" closing the name: state is field 3, nice field 19.
    const auto close = stat.rfind(')');
    if (name.empty() || close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string field;
    for (int i = 3; i < 19 && rest >> field; ++i) {
    }
    int nice = 0;
    if (rest >> nice) out[name].push_back(nice);
  }
  return out;
}

}  // namespace hookd::testing
