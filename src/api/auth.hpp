// TokenAuth: checks `Authorization: Bearer <token>` against the configured API tokens in
// constant time (A34). Tokens are kept as SHA-256 digests; the presented token is hashed and
// compared with CRYPTO_memcmp against every configured digest (no early exit), so timing
// reveals neither which token nor how much of it matched. The matching token's name is the
// actor recorded in the audit log.
// Thread-safety: immutable after construction; authenticate() is safe from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hookd::api {

// One API token: the secret and the name recorded as the actor in the audit log.
struct TokenEntry {
  std::string name;
  std::string token;
};

// An endpoint's feed token (handlers_feed.cpp) starts so; the store keeps its SHA-256 only.
inline constexpr std::string_view kFeedTokenPrefix = "fdt_";

// The token of an `Authorization: Bearer <token>` value, else nullopt.
std::optional<std::string_view> bearer_token(std::string_view authorization);

using Sha256 = std::array<std::uint8_t, 32>;
// crypto::sha256 / sha256_hex (kept here for the API's callers).
Sha256 sha256(std::string_view data);
std::string sha256_hex(std::string_view data);

class TokenAuth {
 public:
  explicit TokenAuth(const std::vector<TokenEntry>& tokens);

  // The actor name for a valid `Authorization` header value, else nullopt.
  std::optional<std::string> authenticate(std::optional<std::string_view> authorization) const;

 private:
  struct Entry {
    std::string name;
    Sha256 digest;
  };
  std::vector<Entry> entries_;
};

}  // namespace hookd::api
