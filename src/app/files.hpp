// Small file helpers for the daemon's side files (the --port-file tests wait for).
// Thread-safety: reentrant.
#pragma once

#include <filesystem>
#include <string_view>

#include "hookd/result.hpp"

namespace hookd::app {

// Writes `content` to `<path>.tmp.<pid>`, flushes it, then renames it over `path`, so a
// reader sees either no file or the whole content — never a half-written one.
Status write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace hookd::app
