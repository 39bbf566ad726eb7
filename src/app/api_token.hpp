// What `hookd serve` does when no API token is configured: rather than serving an open API
// (A34: every API call needs a valid token) or refusing to start (SPEC §2: `hookd serve`
// with no config must work on a laptop), it generates a random token for this run, which
// the caller prints once to the terminal. Configure `[auth] tokens` (or --token, or
// HOOKD_AUTH_TOKENS) for anything that must survive a restart.
// Thread-safety: reentrant.
#pragma once

#include <optional>
#include <string>

#include "config/config.hpp"
#include "hookd/env.hpp"

namespace hookd::app {

// Name recorded as "who" in the audit log for the generated token.
inline constexpr const char* kGeneratedTokenName = "generated";

// "hookd_" + 43 base62 characters (256 bits from `random`'s cryptographic bytes).
std::string generate_api_token(Random& random);

// When `config.auth.tokens` is empty, adds one generated token and returns it.
std::optional<std::string> ensure_api_token(config::Config& config, Random& random);

}  // namespace hookd::app
