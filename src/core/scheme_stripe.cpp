// Stripe: "Stripe-Signature: t=<ts>,v1=<hex HMAC-SHA256(secret, "{ts}.{body}")>[,v1=...]".
// The HMAC key is the secret string's bytes as given ("whsec_..." is not decoded), as in
// Stripe's own libraries. v0 and unknown entries are ignored.
#include <optional>
#include <vector>

#include "core/crypto.hpp"
#include "core/signing_internal.hpp"
#include "hookd/encoding.hpp"

namespace hookd::signing_detail {
namespace {

constexpr std::string_view kHeader = "Stripe-Signature";

class StripeScheme final : public Scheme {
 public:
  StripeScheme(SchemeOptions options, std::vector<crypto::HmacKey> keys)
      : options_(std::move(options)), keys_(std::move(keys)) {}

  HttpHeaders sign(const SignInput& input) const override {
    const std::string ts = std::to_string(input.timestamp);
    std::string value = "t=" + ts;
    for (const crypto::HmacKey& key : keys_) {
      value += ",v1=";
      value += hex_encode(mac(key, ts, input.body).view());
    }
    return {{std::string(kHeader), std::move(value)}};
  }

  std::expected<void, VerifyError> verify(const HttpHeaders& headers, std::string_view body,
                                          std::int64_t now_unix) const override {
    const auto header = read_header(headers, kHeader);
    if (!header) return std::unexpected(header.error());
    std::optional<std::string_view> ts_text;
    std::vector<std::string_view> candidates;
    for_each_token(*header, ',', [&](std::string_view item) {
      item = trim_spaces(item);
      const std::size_t eq = item.find('=');
      if (eq == std::string_view::npos) return;
      const std::string_view name = item.substr(0, eq);
      if (name == "t" && !ts_text) ts_text = item.substr(eq + 1);
      if (name == "v1") candidates.push_back(item.substr(eq + 1));
    });
    if (!ts_text) return reject(VerifyFailure::kBadFormat, "Stripe-Signature has no t= element");
    const auto timestamp = parse_unix_seconds(*ts_text);
    if (!timestamp) {
      return reject(VerifyFailure::kBadFormat, "Stripe-Signature t= is not a Unix timestamp");
    }
    const std::int64_t tol = options_.tolerance.count();
    if (*timestamp < now_unix - tol) {
      return reject(VerifyFailure::kTimestampTooOld,
                    "Stripe-Signature t= is more than " + std::to_string(tol) + " s in the past");
    }
    if (*timestamp > now_unix + tol) {
      return reject(VerifyFailure::kTimestampTooNew,
                    "Stripe-Signature t= is more than " + std::to_string(tol) + " s in the future");
    }
    if (candidates.empty()) {
      return reject(VerifyFailure::kNoMatchingSignature, "Stripe-Signature has no v1= signature");
    }
    const std::string ts = std::to_string(*timestamp);
    for (const crypto::HmacKey& key : keys_) {
      const crypto::Digest expected = mac(key, ts, body);
      for (std::string_view candidate : candidates) {
        const auto decoded = hex_decode(candidate);
        if (decoded && crypto::equal_constant_time(expected.view(), *decoded)) return {};
      }
    }
    return reject(VerifyFailure::kNoMatchingSignature, "no v1= signature matches");
  }

 private:
  static crypto::Digest mac(const crypto::HmacKey& key, std::string_view ts,
                            std::string_view body) {
    return key.begin().update(ts).update(".").update(body).finish();
  }

  SchemeOptions options_;
  std::vector<crypto::HmacKey> keys_;
};

}  // namespace

Result<SchemePtr> make_stripe_scheme(const SchemeOptions& options, Secrets secrets) {
  std::vector<crypto::HmacKey> keys;
  for (std::size_t i = 0; i < secrets.size(); ++i) {
    auto key = crypto::HmacKey::create(crypto::HashAlgorithm::kSha256, as_bytes(secrets[i]));
    if (!key) {
      return fail(ErrorCode::kInvalidArgument, "secret #" + std::to_string(i + 1) + " is empty");
    }
    keys.push_back(*std::move(key));
  }
  return std::make_shared<const StripeScheme>(options, std::move(keys));
}

}  // namespace hookd::signing_detail
