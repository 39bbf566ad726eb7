// Signer and Verifier: pick the scheme, prepare its keys once, delegate (see signing.hpp).
#include "hookd/signing.hpp"

#include <utility>

#include "core/signing_internal.hpp"

namespace hookd {
namespace {

using signing_detail::KeyUse;
using signing_detail::SchemePtr;

Result<SchemePtr> make_scheme(const SchemeOptions& options, std::span<const std::string> secrets,
                              KeyUse use) {
  if (secrets.empty()) return fail(ErrorCode::kInvalidArgument, "at least one secret is required");
  if (options.tolerance.count() < 0) {
    return fail(ErrorCode::kInvalidArgument, "tolerance must not be negative");
  }
  const bool standard =
      options.kind == SchemeKind::kStandard || options.kind == SchemeKind::kStandardEd25519;
  if (standard) {
    if (auto mixed = signing_detail::make_mixed_standard_scheme(options, secrets, use)) {
      return *std::move(mixed);
    }
  }
  switch (options.kind) {
    case SchemeKind::kStandard:
      return signing_detail::make_standard_scheme(options, secrets);
    case SchemeKind::kStandardEd25519:
      return signing_detail::make_standard_ed25519_scheme(options, secrets, use);
    case SchemeKind::kStripe:
      return signing_detail::make_stripe_scheme(options, secrets);
    case SchemeKind::kGithub:
    case SchemeKind::kHmacHexTs:
    case SchemeKind::kHmac:
      return signing_detail::make_template_hmac_scheme(options, secrets);
  }
  return fail(ErrorCode::kInvalidArgument, "unknown signature scheme");
}

}  // namespace

std::optional<SchemeKind> parse_scheme(std::string_view name) {
  if (name == "standard" || name == "svix") return SchemeKind::kStandard;
  if (name == "standard-ed25519") return SchemeKind::kStandardEd25519;
  if (name == "stripe") return SchemeKind::kStripe;
  if (name == "github") return SchemeKind::kGithub;
  if (name == "hmac-hex-ts") return SchemeKind::kHmacHexTs;
  if (name == "hmac") return SchemeKind::kHmac;
  return std::nullopt;
}

std::string_view to_string(SchemeKind kind) {
  switch (kind) {
    case SchemeKind::kStandard:
      return "standard";
    case SchemeKind::kStandardEd25519:
      return "standard-ed25519";
    case SchemeKind::kStripe:
      return "stripe";
    case SchemeKind::kGithub:
      return "github";
    case SchemeKind::kHmacHexTs:
      return "hmac-hex-ts";
    case SchemeKind::kHmac:
      return "hmac";
  }
  return "unknown";
}

std::optional<HeaderNaming> parse_header_naming(std::string_view name) {
  if (name == "webhook") return HeaderNaming::kWebhook;
  if (name == "svix") return HeaderNaming::kSvix;
  if (name == "both") return HeaderNaming::kBoth;
  return std::nullopt;
}

std::string_view to_string(HeaderNaming naming) {
  switch (naming) {
    case HeaderNaming::kWebhook:
      return "webhook";
    case HeaderNaming::kSvix:
      return "svix";
    case HeaderNaming::kBoth:
      return "both";
  }
  return "both";
}

std::string_view to_string(VerifyFailure failure) {
  switch (failure) {
    case VerifyFailure::kMissingHeader:
      return "missing_header";
    case VerifyFailure::kBadFormat:
      return "bad_format";
    case VerifyFailure::kTimestampTooOld:
      return "timestamp_too_old";
    case VerifyFailure::kTimestampTooNew:
      return "timestamp_too_new";
    case VerifyFailure::kNoMatchingSignature:
      return "no_matching_signature";
  }
  return "unknown";
}

std::optional<std::string_view> find_header(const HttpHeaders& headers, std::string_view name) {
  for (const HttpHeader& header : headers) {
    if (signing_detail::iequals(header.name, name)) return std::string_view(header.value);
  }
  return std::nullopt;
}

// ---- Signer ----

struct Signer::Impl {
  SchemeOptions options;
  SchemePtr scheme;
};

Signer::Signer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Result<Signer> Signer::create(SchemeOptions options, std::span<const std::string> secrets) {
  auto scheme = make_scheme(options, secrets, KeyUse::kSign);
  if (!scheme) return std::unexpected(std::move(scheme.error()));
  return Signer(std::make_shared<const Impl>(Impl{std::move(options), *std::move(scheme)}));
}

HttpHeaders Signer::sign(const SignInput& input) const { return impl_->scheme->sign(input); }

const SchemeOptions& Signer::options() const { return impl_->options; }

// ---- Verifier ----

struct Verifier::Impl {
  SchemeOptions options;
  SchemePtr scheme;
};

Verifier::Verifier(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

Result<Verifier> Verifier::create(SchemeOptions options, std::span<const std::string> secrets) {
  auto scheme = make_scheme(options, secrets, KeyUse::kVerify);
  if (!scheme) return std::unexpected(std::move(scheme.error()));
  return Verifier(std::make_shared<const Impl>(Impl{std::move(options), *std::move(scheme)}));
}

std::expected<void, VerifyError> Verifier::verify(const HttpHeaders& headers, std::string_view body,
                                                  std::int64_t now_unix) const {
  return impl_->scheme->verify(headers, body, now_unix);
}

const SchemeOptions& Verifier::options() const { return impl_->options; }

}  // namespace hookd
