// The ISO-8601 time format of hookd's JSON (the Svix API's): "2024-01-01T00:00:00.000Z",
// always UTC with milliseconds; read back with an optional fraction and a Z or ±hh:mm offset.
// Used by the API's answers and request bodies and by the CLI's output and flags.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hookd::wire {

// Unix milliseconds → "2024-01-01T00:00:00.000Z".
std::string format_time(std::int64_t unix_ms);
// "2024-01-01T00:00:00Z", with optional fraction and a Z or ±hh:mm offset → Unix ms.
std::optional<std::int64_t> parse_time(std::string_view text);

}  // namespace hookd::wire
