#include "api/auth.hpp"

#include <openssl/crypto.h>

#include <cstdlib>

#include "core/crypto.hpp"
#include "hookd/encoding.hpp"
#include "net/http_types.hpp"

namespace hookd::api {

Sha256 sha256(std::string_view data) { return crypto::sha256(data); }

std::string sha256_hex(std::string_view data) { return crypto::sha256_hex(data); }

TokenAuth::TokenAuth(const std::vector<TokenEntry>& tokens) {
  for (const auto& t : tokens) {
    if (!t.token.empty()) entries_.push_back({t.name, sha256(t.token)});
  }
}

std::optional<std::string_view> bearer_token(std::string_view value) {
  constexpr std::string_view kScheme = "Bearer ";
  if (value.size() <= kScheme.size() || !net::iequals(value.substr(0, kScheme.size()), kScheme)) {
    return std::nullopt;
  }
  value.remove_prefix(kScheme.size());
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  return value;
}

std::optional<std::string> TokenAuth::authenticate(
    std::optional<std::string_view> authorization) const {
  if (!authorization) return std::nullopt;
  auto value = bearer_token(*authorization);
  if (!value) return std::nullopt;
  const Sha256 presented = sha256(*value);
  const Entry* found = nullptr;
  for (const auto& e : entries_) {  // no early exit: every entry is compared
    if (CRYPTO_memcmp(e.digest.data(), presented.data(), presented.size()) == 0) found = &e;
  }
  if (found == nullptr) return std::nullopt;
  return found->name;
}

}  // namespace hookd::api
