// Standard Webhooks v1a: "v1a,<base64 Ed25519 signature of "{id}.{ts}.{body}">".
// Keys: "whsk_<base64 32-byte seed>" (sign; verify with the derived public key) and
// "whpk_<base64 32-byte public key>" (verify only). A 64-byte whsk_ (seed followed by the
// public key, libsodium's layout) is accepted if its second half matches the seed.
#include <algorithm>
#include <optional>
#include <vector>

#include "core/crypto.hpp"
#include "core/scheme_standard_common.hpp"

namespace hookd::signing_detail {
namespace {

class StandardEd25519Scheme final : public Scheme {
 public:
  StandardEd25519Scheme(SchemeOptions options, std::vector<crypto::Ed25519PrivateKey> signing,
                        std::vector<crypto::Ed25519PublicKey> verifying)
      : options_(std::move(options)),
        signing_(std::move(signing)),
        verifying_(std::move(verifying)) {}

  HttpHeaders sign(const SignInput& input) const override {
    const std::string content = standard_content(input.id, input.timestamp, input.body);
    std::string signatures;
    for (const crypto::Ed25519PrivateKey& key : signing_) {
      if (!signatures.empty()) signatures += ' ';
      signatures += "v1a,";
      signatures += base64_encode(key.sign(content).view());
    }
    return standard_headers(options_.naming, input.id, input.timestamp, std::move(signatures));
  }

  std::expected<void, VerifyError> verify(const HttpHeaders& headers, std::string_view body,
                                          std::int64_t now_unix) const override {
    const auto request = read_standard_request(headers, options_, now_unix);
    if (!request) return std::unexpected(request.error());
    const std::string content = standard_content(request->id, request->timestamp, body);
    bool matched = false;
    const bool well_formed =
        for_each_standard_signature(request->signatures, "v1a", [&](ByteView candidate) {
          matched = std::ranges::any_of(verifying_, [&](const crypto::Ed25519PublicKey& key) {
            return key.verify(content, candidate);
          });
          return matched;
        });
    if (matched) return {};
    if (!well_formed) {
      return reject(VerifyFailure::kBadFormat,
                    "signature header has no \"<version>,<signature>\" entry");
    }
    return reject(VerifyFailure::kNoMatchingSignature, "no v1a signature matches");
  }

 private:
  SchemeOptions options_;
  std::vector<crypto::Ed25519PrivateKey> signing_;
  std::vector<crypto::Ed25519PublicKey> verifying_;
};

std::optional<crypto::Ed25519PrivateKey> parse_secret_key(std::string_view secret) {
  const auto raw = decode_prefixed_key(secret, "whsk_", /*prefix_optional=*/false);
  if (!raw || (raw->size() != 32 && raw->size() != 64)) return std::nullopt;
  auto key = crypto::Ed25519PrivateKey::from_seed(ByteView(*raw).first(32));
  if (!key) return std::nullopt;
  if (raw->size() == 64) {
    const crypto::Ed25519Raw derived = key->public_key().raw();
    if (!std::ranges::equal(derived, ByteView(*raw).subspan(32))) return std::nullopt;
  }
  return *std::move(key);
}

std::optional<crypto::Ed25519PublicKey> parse_public_key(std::string_view secret) {
  const auto raw = decode_prefixed_key(secret, "whpk_", /*prefix_optional=*/false);
  if (!raw) return std::nullopt;
  auto key = crypto::Ed25519PublicKey::from_raw(*raw);
  if (!key) return std::nullopt;
  return *std::move(key);
}

}  // namespace

Result<SchemePtr> make_standard_ed25519_scheme(const SchemeOptions& options, Secrets secrets,
                                               KeyUse use) {
  std::vector<crypto::Ed25519PrivateKey> signing;
  std::vector<crypto::Ed25519PublicKey> verifying;
  for (std::size_t i = 0; i < secrets.size(); ++i) {
    const std::string which = "secret #" + std::to_string(i + 1);
    if (auto key = parse_secret_key(secrets[i])) {
      verifying.push_back(key->public_key());
      signing.push_back(*std::move(key));
      continue;
    }
    if (use == KeyUse::kVerify && secrets[i].starts_with("whpk_")) {
      auto key = parse_public_key(secrets[i]);
      if (!key) {
        return fail(ErrorCode::kInvalidArgument,
                    which + " is not whpk_<base64 32-byte public key>");
      }
      verifying.push_back(*std::move(key));
      continue;
    }
    return fail(ErrorCode::kInvalidArgument,
                which + (use == KeyUse::kSign
                             ? " is not whsk_<base64 32-byte seed> (signing needs a secret key)"
                             : " is not whsk_<base64 32-byte seed> or whpk_<base64 32-byte key>"));
  }
  return std::make_shared<const StandardEd25519Scheme>(options, std::move(signing),
                                                       std::move(verifying));
}

}  // namespace hookd::signing_detail
