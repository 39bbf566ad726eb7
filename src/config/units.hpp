// Duration and byte-size notation used by the config file and environment variables.
//   durations: one or more <integer><unit> groups, unit ms|s|m|h|d: "500ms", "3s", "1h30m";
//              "0" alone is zero. Bare numbers are refused: the unit is never guessed.
//   sizes:     a byte count ("1048576"), or <integer><unit>, unit B|KiB|MiB|GiB: "16KiB".
// Errors are messages for a person (no key name; the caller adds it). Pure functions.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

#include "config/config.hpp"

namespace hookd::config {

std::expected<Duration, std::string> parse_duration(std::string_view text);
std::expected<std::uint64_t, std::string> parse_size(std::string_view text);

// Shortest notation that parses back to the same value: "3s", "1h30m", "250ms", "0".
std::string format_duration(Duration value);
// "16KiB", "1MiB", or a plain byte count when not a whole number of KiB.
std::string format_size(std::uint64_t bytes);

}  // namespace hookd::config
