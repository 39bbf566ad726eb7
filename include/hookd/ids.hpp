// Prefixed, time-sortable ids in the style of Svix ("msg_2Zk...", "ep_...", "app_...").
//
// Layout: "<prefix>_<body>", body = 27 characters of base62 (0-9A-Za-z, which sorts in
// ASCII order): 9 characters of Unix milliseconds (48 bits, zero-padded) followed by 18
// characters encoding 13 random bytes (104 bits). Bodies have a fixed length, so for one
// prefix lexicographic order is creation order at millisecond resolution; ids made in the
// same millisecond differ (and order) by their random part.
// Pure: the time and the random bytes are parameters; the caller owns the clock and RNG.
// Thread-safety: free functions over values; safe from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "hookd/result.hpp"

namespace hookd {

inline constexpr std::size_t kIdRandomBytes = 13;
inline constexpr std::size_t kIdTimeChars = 9;
inline constexpr std::size_t kIdRandomChars = 18;
inline constexpr std::size_t kIdBodyChars = kIdTimeChars + kIdRandomChars;  // 27
inline constexpr std::int64_t kIdMaxUnixMs = (std::int64_t{1} << 48) - 1;   // year 10889

using IdRandomBytes = std::array<std::uint8_t, kIdRandomBytes>;

// Well-known prefixes (Svix uses the first four).
namespace id_prefix {
inline constexpr std::string_view kApplication = "app";
inline constexpr std::string_view kEndpoint = "ep";
inline constexpr std::string_view kMessage = "msg";
inline constexpr std::string_view kAttempt = "atmpt";
inline constexpr std::string_view kEvent = "evt";
inline constexpr std::string_view kInbound = "inb";
inline constexpr std::string_view kDeadLetter = "dlq";
inline constexpr std::string_view kAudit = "aud";
inline constexpr std::string_view kProxyKey = "idk";  // the idempotency gateway's keys
inline constexpr std::string_view kReconcileRun = "rcr";
inline constexpr std::string_view kDifference = "rcd";  // a reconciliation difference
inline constexpr std::string_view kTask = "qtask";      // a Svix background task
}  // namespace id_prefix

// A prefix is 1-16 characters of [a-z0-9], starting with a letter.
bool is_valid_id_prefix(std::string_view prefix);

// Builds an id. Preconditions (asserted; they are programming errors): a valid prefix,
// 0 <= unix_ms <= kIdMaxUnixMs.
std::string make_id(std::string_view prefix, std::int64_t unix_ms,
                    std::span<const std::uint8_t, kIdRandomBytes> random_bytes);

struct ParsedId {
  std::string_view prefix;  // points into the parsed string
  std::int64_t unix_ms = 0;
  IdRandomBytes random{};
};

// Validates an id received from outside (API path, JSON body). kInvalidArgument when the
// shape, alphabet or length is wrong, or when expected_prefix is given and differs.
Result<ParsedId> parse_id(std::string_view id, std::string_view expected_prefix = {});

}  // namespace hookd
