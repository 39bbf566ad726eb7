// Standard Webhooks v1: "v1,<base64 HMAC-SHA256(key, "{id}.{ts}.{body}")>", keys "whsec_<b64>".
#include <vector>

#include "core/crypto.hpp"
#include "core/scheme_standard_common.hpp"

namespace hookd::signing_detail {
namespace {

class StandardScheme final : public Scheme {
 public:
  StandardScheme(SchemeOptions options, std::vector<crypto::HmacKey> keys)
      : options_(std::move(options)), keys_(std::move(keys)) {}

  HttpHeaders sign(const SignInput& input) const override {
    std::string signatures;
    for (const crypto::HmacKey& key : keys_) {
      if (!signatures.empty()) signatures += ' ';
      signatures += "v1,";
      signatures += base64_encode(mac(key, input.id, input.timestamp, input.body).view());
    }
    return standard_headers(options_.naming, input.id, input.timestamp, std::move(signatures));
  }

  std::expected<void, VerifyError> verify(const HttpHeaders& headers, std::string_view body,
                                          std::int64_t now_unix) const override {
    const auto request = read_standard_request(headers, options_, now_unix);
    if (!request) return std::unexpected(request.error());
    std::vector<crypto::Digest> expected;
    expected.reserve(keys_.size());
    for (const crypto::HmacKey& key : keys_) {
      expected.push_back(mac(key, request->id, request->timestamp, body));
    }
    bool matched = false;
    const bool well_formed =
        for_each_standard_signature(request->signatures, "v1", [&](ByteView candidate) {
          for (const crypto::Digest& digest : expected) {
            if (crypto::equal_constant_time(digest.view(), candidate)) matched = true;
          }
          return matched;
        });
    if (matched) return {};
    if (!well_formed) {
      return reject(VerifyFailure::kBadFormat,
                    "signature header has no \"<version>,<signature>\" entry");
    }
    return reject(VerifyFailure::kNoMatchingSignature, "no v1 signature matches");
  }

 private:
  static crypto::Digest mac(const crypto::HmacKey& key, std::string_view id, std::int64_t timestamp,
                            std::string_view body) {
    const std::string ts = std::to_string(timestamp);
    return key.begin().update(id).update(".").update(ts).update(".").update(body).finish();
  }

  SchemeOptions options_;
  std::vector<crypto::HmacKey> keys_;
};

}  // namespace

Result<SchemePtr> make_standard_scheme(const SchemeOptions& options, Secrets secrets) {
  std::vector<crypto::HmacKey> keys;
  for (std::size_t i = 0; i < secrets.size(); ++i) {
    // Like the reference libraries, a bare base64 secret without "whsec_" is accepted too.
    const auto raw = decode_prefixed_key(secrets[i], "whsec_", /*prefix_optional=*/true);
    if (!raw) {
      return fail(ErrorCode::kInvalidArgument,
                  "secret #" + std::to_string(i + 1) + " is not whsec_<base64>");
    }
    auto key = crypto::HmacKey::create(crypto::HashAlgorithm::kSha256, *raw);
    if (!key) return std::unexpected(key.error());
    keys.push_back(*std::move(key));
  }
  return std::make_shared<const StandardScheme>(options, std::move(keys));
}

}  // namespace hookd::signing_detail
