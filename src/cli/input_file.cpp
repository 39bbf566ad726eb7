#include "cli/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace hookd::cli {
namespace {

Result<std::string> read_stream(std::istream& in, const std::string& what) {
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) {
    return fail(ErrorCode::kInvalidArgument, "cannot read " + what);
  }
  return std::move(bytes).str();
}

}  // namespace

Result<std::string> read_input_file(const std::string& path) {
  if (path == "-") {
    std::cin >> std::noskipws;
    return read_stream(std::cin, "standard input");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return fail(ErrorCode::kInvalidArgument, "cannot open '" + path + "': " + std::strerror(errno));
  }
  return read_stream(file, "'" + path + "'");
}

}  // namespace hookd::cli
