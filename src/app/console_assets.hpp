// The console's static files (console/ in the repository), compiled into the binary by
// cmake/EmbedConsole.cmake at build time (the generated console_assets.cpp in the build tree).
// Thread-safety: immutable static data; safe from any thread.
#pragma once

#include <span>
#include <string_view>

namespace hookd::app {

struct ConsoleAsset {
  std::string_view name;   // file name inside console/, e.g. "console.js"
  std::string_view bytes;  // the file's exact content
};

// Every asset, sorted by name.
std::span<const ConsoleAsset> console_assets();

}  // namespace hookd::app
