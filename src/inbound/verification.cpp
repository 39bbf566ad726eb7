#include "inbound/verification.hpp"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <array>

namespace hookd::inbound {
namespace {

// Constant time regardless of where the values differ or how long they are: both sides are
// hashed first, and the digests compared with CRYPTO_memcmp.
bool token_equals(std::string_view given, std::string_view expected) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> a{};
  std::array<unsigned char, SHA256_DIGEST_LENGTH> b{};
  SHA256(reinterpret_cast<const unsigned char*>(given.data()), given.size(), a.data());
  SHA256(reinterpret_cast<const unsigned char*>(expected.data()), expected.size(), b.data());
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::expected<void, Rejection> verify_token(const Source& source, const net::HttpHeaders& headers) {
  const auto& t = source.settings.token;
  const auto value = headers.get(t.header);
  if (!value)
    return std::unexpected(Rejection{"missing_header", "header " + t.header + " is missing"});
  std::string_view token = *value;
  if (!t.prefix.empty()) {
    if (!token.starts_with(t.prefix)) {
      return std::unexpected(
          Rejection{"bad_format", "header " + t.header + " does not start with the prefix"});
    }
    token.remove_prefix(t.prefix.size());
  }
  bool match = false;
  for (const auto& secret : source.settings.secrets) match |= token_equals(token, secret);
  if (!match) return std::unexpected(Rejection{"bad_token", "the token does not match"});
  return {};
}

}  // namespace

HttpHeaders core_headers(const net::HttpHeaders& headers) {
  HttpHeaders out;
  out.reserve(headers.size());
  for (const auto& h : headers) out.push_back({h.name, h.value});
  return out;
}

std::expected<void, Rejection> verify_request(const Source& source, const net::HttpHeaders& headers,
                                              std::string_view body, std::int64_t now_unix) {
  switch (source.settings.verification) {
    case Verification::kNone:
      return {};
    case Verification::kToken:
      return verify_token(source, headers);
    case Verification::kCloudEvents:
      if (source.settings.secrets.empty()) return {};
      return verify_token(source, headers);
    case Verification::kScheme:
      break;
  }
  if (!source.verifier) return std::unexpected(Rejection{"bad_format", "no verifier"});
  auto verified = source.verifier->verify(core_headers(headers), body, now_unix);
  if (!verified) {
    return std::unexpected(
        Rejection{std::string(to_string(verified.error().reason)), verified.error().detail});
  }
  return {};
}

}  // namespace hookd::inbound
