// Prefixed, time-sortable ids: base62 fixed-width encoding of (unix ms, random bytes).
#include "hookd/ids.hpp"

#include <algorithm>
#include <cassert>
#include <optional>
#include <vector>

namespace hookd {
namespace {

constexpr std::string_view kAlphabet =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
constexpr std::size_t kTimeBytes = 6;  // 48 bits of milliseconds
constexpr std::size_t kMaxPrefixChars = 16;

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  if (c >= 'a' && c <= 'z') return c - 'a' + 36;
  return -1;
}

// Writes the big-endian number in `bytes` as exactly out.size() base62 digits, most
// significant first. The caller sizes `out` so the number always fits.
void encode_base62(std::vector<std::uint8_t> bytes, std::span<char> out) {
  for (std::size_t pos = out.size(); pos-- > 0;) {
    unsigned remainder = 0;
    for (auto& b : bytes) {  // long division of the whole number by 62
      const unsigned acc = (remainder << 8) | b;
      b = static_cast<std::uint8_t>(acc / 62);
      remainder = acc % 62;
    }
    out[pos] = kAlphabet[remainder];
  }
  assert(std::all_of(bytes.begin(), bytes.end(), [](auto b) { return b == 0; }));
}

// Parses base62 digits into a big-endian number of exactly `width` bytes; nullopt on a
// bad digit or when the value does not fit.
std::optional<std::vector<std::uint8_t>> decode_base62(std::string_view digits, std::size_t width) {
  std::vector<std::uint8_t> bytes(width, 0);
  for (char c : digits) {
    const int d = digit_value(c);
    if (d < 0) return std::nullopt;
    unsigned carry = static_cast<unsigned>(d);
    for (std::size_t i = width; i-- > 0;) {  // bytes = bytes * 62 + d
      const unsigned acc = bytes[i] * 62u + carry;
      bytes[i] = static_cast<std::uint8_t>(acc & 0xff);
      carry = acc >> 8;
    }
    if (carry != 0) return std::nullopt;
  }
  return bytes;
}

}  // namespace

bool is_valid_id_prefix(std::string_view prefix) {
  if (prefix.empty() || prefix.size() > kMaxPrefixChars) return false;
  if (prefix.front() < 'a' || prefix.front() > 'z') return false;
  for (char c : prefix) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

std::string make_id(std::string_view prefix, std::int64_t unix_ms,
                    std::span<const std::uint8_t, kIdRandomBytes> random_bytes) {
  assert(is_valid_id_prefix(prefix));
  assert(unix_ms >= 0 && unix_ms <= kIdMaxUnixMs);
  std::vector<std::uint8_t> time_bytes(kTimeBytes);
  auto ms = static_cast<std::uint64_t>(unix_ms);
  for (std::size_t i = kTimeBytes; i-- > 0; ms >>= 8) {
    time_bytes[i] = static_cast<std::uint8_t>(ms & 0xff);
  }
  std::string id(prefix);
  id.push_back('_');
  const std::size_t body_at = id.size();
  id.resize(body_at + kIdBodyChars);
  std::span<char> body(id.data() + body_at, kIdBodyChars);
  encode_base62(std::move(time_bytes), body.first(kIdTimeChars));
  encode_base62({random_bytes.begin(), random_bytes.end()}, body.last(kIdRandomChars));
  return id;
}

Result<ParsedId> parse_id(std::string_view id, std::string_view expected_prefix) {
  const auto sep = id.find('_');
  if (sep == std::string_view::npos) return fail(ErrorCode::kInvalidArgument, "id has no prefix");
  const std::string_view prefix = id.substr(0, sep);
  const std::string_view body = id.substr(sep + 1);
  if (!is_valid_id_prefix(prefix)) {
    return fail(ErrorCode::kInvalidArgument, "id prefix is malformed");
  }
  if (!expected_prefix.empty() && prefix != expected_prefix) {
    return fail(ErrorCode::kInvalidArgument,
                "id must start with \"" + std::string(expected_prefix) + "_\"");
  }
  if (body.size() != kIdBodyChars) {
    return fail(ErrorCode::kInvalidArgument, "id has the wrong length");
  }
  const auto time_bytes = decode_base62(body.substr(0, kIdTimeChars), kTimeBytes);
  const auto random = decode_base62(body.substr(kIdTimeChars), kIdRandomBytes);
  if (!time_bytes || !random) {
    return fail(ErrorCode::kInvalidArgument, "id contains invalid characters");
  }
  ParsedId parsed{.prefix = prefix};
  for (auto b : *time_bytes) parsed.unix_ms = (parsed.unix_ms << 8) | b;
  std::copy(random->begin(), random->end(), parsed.random.begin());
  return parsed;
}

}  // namespace hookd
