// Internal interface between Signer/Verifier (signing.cpp) and the scheme implementations
// (scheme_*.cpp), plus helpers they share: header value parsing and the replay window.
// Thread-safety: schemes are immutable after their make_* function; helpers are pure.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "hookd/signing.hpp"

namespace hookd::signing_detail {

// Signers need secret keys; verifiers may also take public keys (whpk_).
enum class KeyUse { kSign, kVerify };

class Scheme {
 public:
  virtual ~Scheme() = default;
  virtual HttpHeaders sign(const SignInput& input) const = 0;
  virtual std::expected<void, VerifyError> verify(const HttpHeaders& headers, std::string_view body,
                                                  std::int64_t now_unix) const = 0;
};
using SchemePtr = std::shared_ptr<const Scheme>;

using Secrets = std::span<const std::string>;

Result<SchemePtr> make_standard_scheme(const SchemeOptions& options, Secrets secrets);
Result<SchemePtr> make_standard_ed25519_scheme(const SchemeOptions& options, Secrets secrets,
                                               KeyUse use);
// Standard Webhooks with whsec_ AND whsk_/whpk_ keys (a rotation between the kinds); nullopt
// when the secrets are all of one kind.
std::optional<Result<SchemePtr>> make_mixed_standard_scheme(const SchemeOptions& options,
                                                            Secrets secrets, KeyUse use);
Result<SchemePtr> make_stripe_scheme(const SchemeOptions& options, Secrets secrets);
// github, hmac-hex-ts and hmac: one HMAC over a template, carried in one header.
Result<SchemePtr> make_template_hmac_scheme(const SchemeOptions& options, Secrets secrets);

// ---- shared helpers ----

std::unexpected<VerifyError> reject(VerifyFailure reason, std::string detail);

// Unix seconds as decimal digits only (no sign, no spaces, at most 18 digits).
std::optional<std::int64_t> parse_unix_seconds(std::string_view text);

// Reads and checks a timestamp header: missing, bad format, or outside [now-tol, now+tol].
std::expected<std::int64_t, VerifyError> read_timestamp(const HttpHeaders& headers,
                                                        std::string_view header_name,
                                                        std::int64_t now_unix,
                                                        std::chrono::seconds tolerance);

std::expected<std::string_view, VerifyError> read_header(const HttpHeaders& headers,
                                                         std::string_view header_name);

std::string_view trim_spaces(std::string_view text);
bool iequals(std::string_view a, std::string_view b);

// Calls fn(token) for each non-empty token between separators.
template <class Fn>
void for_each_token(std::string_view text, char separator, Fn&& fn) {
  while (!text.empty()) {
    const std::size_t end = text.find(separator);
    const std::string_view token = text.substr(0, end);
    if (!token.empty()) fn(token);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

}  // namespace hookd::signing_detail
