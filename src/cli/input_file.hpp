// Reads the whole of a file given on the command line, byte for byte ("-" = standard input).
// Thread-safety: reading stdin is not safe to share; call from the CLI thread only.
#pragma once

#include <string>
#include <string_view>

#include "hookd/result.hpp"

namespace hookd::cli {

// The exact bytes of `path` (no newline or encoding translation). kInvalidArgument with the
// path and the OS reason when it cannot be opened or read.
Result<std::string> read_input_file(const std::string& path);

}  // namespace hookd::cli
