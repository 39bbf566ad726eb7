// Standard Webhooks with keys of both kinds (a secret rotation from whsec_ to whsk_ or
// back): each key signs with its own algorithm, v1 (HMAC) and v1a (Ed25519) signatures
// share one space-separated signature header, as the specification allows several. A
// request verifies if either family verifies it.
#include <string>
#include <vector>

#include "core/scheme_standard_common.hpp"

namespace hookd::signing_detail {
namespace {

bool is_ed25519_key(std::string_view secret) {
  return secret.starts_with("whsk_") || secret.starts_with("whpk_");
}

bool is_signature_header(std::string_view name) {
  return iequals(name, standard_header_names(HeaderNaming::kWebhook).signature) ||
         iequals(name, standard_header_names(HeaderNaming::kSvix).signature);
}

class MixedStandardScheme final : public Scheme {
 public:
  MixedStandardScheme(SchemePtr hmac, SchemePtr ed25519)
      : hmac_(std::move(hmac)), ed25519_(std::move(ed25519)) {}

  // Both schemes sign with the same naming, so each signature header (one, or two with
  // HeaderNaming::kBoth) of the one gets the other's signatures of the same name appended.
  HttpHeaders sign(const SignInput& input) const override {
    HttpHeaders headers = hmac_->sign(input);
    const HttpHeaders ed25519_headers = ed25519_->sign(input);
    for (HttpHeader& h : headers) {
      if (!is_signature_header(h.name)) continue;
      if (const auto extra = find_header(ed25519_headers, h.name)) {
        h.value += ' ' + std::string(*extra);
      }
    }
    return headers;
  }

  std::expected<void, VerifyError> verify(const HttpHeaders& headers, std::string_view body,
                                          std::int64_t now_unix) const override {
    auto first = hmac_->verify(headers, body, now_unix);
    if (first) return first;
    auto second = ed25519_->verify(headers, body, now_unix);
    if (second) return second;
    // Both families were asked: report the first problem unless it is only "no v1 match".
    if (first.error().reason == VerifyFailure::kNoMatchingSignature) {
      return reject(VerifyFailure::kNoMatchingSignature, "no v1 or v1a signature matches");
    }
    return first;
  }

 private:
  SchemePtr hmac_;
  SchemePtr ed25519_;
};

}  // namespace

std::optional<Result<SchemePtr>> make_mixed_standard_scheme(const SchemeOptions& options,
                                                            Secrets secrets, KeyUse use) {
  std::vector<std::string> hmac_keys;
  std::vector<std::string> ed25519_keys;
  for (const std::string& s : secrets) (is_ed25519_key(s) ? ed25519_keys : hmac_keys).push_back(s);
  if (hmac_keys.empty() || ed25519_keys.empty()) return std::nullopt;  // one kind: not mixed
  SchemeOptions hmac_options = options;
  hmac_options.kind = SchemeKind::kStandard;
  SchemeOptions ed25519_options = options;
  ed25519_options.kind = SchemeKind::kStandardEd25519;
  auto hmac = make_standard_scheme(hmac_options, hmac_keys);
  if (!hmac) return Result<SchemePtr>(std::unexpected(hmac.error()));
  auto ed25519 = make_standard_ed25519_scheme(ed25519_options, ed25519_keys, use);
  if (!ed25519) return Result<SchemePtr>(std::unexpected(ed25519.error()));
  return Result<SchemePtr>(std::make_shared<const MixedStandardScheme>(*hmac, *ed25519));
}

}  // namespace hookd::signing_detail
