#include "app/files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace hookd::app {

Status write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path temp = path.string() + ".tmp." + std::to_string(::getpid());
  std::FILE* file = std::fopen(temp.c_str(), "wb");
  if (file == nullptr) {
    return fail(ErrorCode::kUnavailable,
                "cannot create " + temp.string() + ": " + std::strerror(errno));
  }
  const bool written = std::fwrite(content.data(), 1, content.size(), file) == content.size();
  const bool flushed = std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0;
  const bool closed = std::fclose(file) == 0;
  if (!written || !flushed || !closed) {
    std::filesystem::remove(temp);
    return fail(ErrorCode::kUnavailable, "cannot write " + temp.string());
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp);
    return fail(ErrorCode::kUnavailable,
                "cannot rename " + temp.string() + " to " + path.string() + ": " + ec.message());
  }
  return {};
}

}  // namespace hookd::app
