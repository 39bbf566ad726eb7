// Process exit codes shared by hookd's subcommands.
// Thread-safety: constants only.
#pragma once

namespace hookd::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;  // verify: the request's signature is not valid
inline constexpr int kExitUsage = 2;    // bad flags, unreadable or malformed input, bad secret

}  // namespace hookd::cli
