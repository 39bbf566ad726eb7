// Byte encodings used by signature schemes and secrets: standard base64 (RFC 4648 section 4)
// and hexadecimal. Decoders are strict about the alphabet and canonical form, and return
// nullopt on bad input instead of guessing.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hookd {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;

inline ByteView as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// Standard alphabet (+ /), always padded with '='.
std::string base64_encode(ByteView bytes);
// Standard alphabet; '=' padding optional but, if present, complete. Rejects other
// characters, whitespace, and non-zero unused bits (so each byte string has one encoding).
std::optional<Bytes> base64_decode(std::string_view text);

// Lowercase hex.
std::string hex_encode(ByteView bytes);
// Either case; even length only.
std::optional<Bytes> hex_decode(std::string_view text);

}  // namespace hookd
