// Webhook signature schemes: sign outgoing requests and verify incoming ones.
//
// Every scheme signs the raw body bytes; where a scheme has a timestamp it is part of the
// signed content and checked against a tolerance window in both directions. Verification
// compares in constant time and reports why it failed, never anything about the secret.
// Pure: the current time is a parameter; no I/O.
// Thread-safety: Signer and Verifier are immutable after create(); share them freely.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"

namespace hookd {

enum class SchemeKind {
  kStandard,         // Standard Webhooks v1: base64 HMAC-SHA256 over "{id}.{ts}.{body}"
  kStandardEd25519,  // Standard Webhooks v1a: Ed25519 over the same content
  kStripe,           // Stripe-Signature: t=<ts>,v1=<hex HMAC-SHA256 over "{ts}.{body}">
  kGithub,           // X-Hub-Signature-256: sha256=<hex HMAC-SHA256 over body>
  kHmacHexTs,        // the seeds' scheme: hex HMAC-SHA256 over "{ts}.{body}", own headers
  kHmac,             // generic: algorithm, encoding, header, signed-content template
};

// Accepts "standard" (alias "svix"), "standard-ed25519", "stripe", "github", "hmac-hex-ts",
// "hmac".
std::optional<SchemeKind> parse_scheme(std::string_view name);
std::string_view to_string(SchemeKind kind);

struct HttpHeader {
  std::string name;
  std::string value;
};
using HttpHeaders = std::vector<HttpHeader>;

// Case-insensitive lookup of the first header with this name.
std::optional<std::string_view> find_header(const HttpHeaders& headers, std::string_view name);

// Standard Webhooks header names: "webhook-id/-timestamp/-signature", "svix-*", or both
// families (signing: the same id, timestamp and signatures under both names, webhook-* first;
// verifying: as kWebhook, whichever family the request has).
enum class HeaderNaming { kWebhook, kSvix, kBoth };

// "webhook", "svix", "both" (an endpoint's headerNaming); nullopt for anything else.
std::optional<HeaderNaming> parse_header_naming(std::string_view name);
std::string_view to_string(HeaderNaming naming);

struct HmacHexTsOptions {
  std::string signature_header = "X-Signature";
  std::string timestamp_header = "X-Timestamp";
};

struct GenericHmacOptions {
  enum class Algorithm { kSha256, kSha512 };
  enum class Encoding { kHex, kBase64 };
  Algorithm algorithm = Algorithm::kSha256;
  Encoding encoding = Encoding::kHex;
  std::string signature_header = "X-Signature";
  std::string signature_prefix;  // e.g. "sha256=" put before the encoded MAC
  // Placeholders: {id}, {timestamp}, {body}. Without {timestamp} no window is checked.
  std::string content_template = "{timestamp}.{body}";
  std::string timestamp_header = "X-Timestamp";
  std::string id_header = "X-Webhook-Id";
};

struct SchemeOptions {
  SchemeKind kind = SchemeKind::kStandard;
  HeaderNaming naming = HeaderNaming::kWebhook;  // standard schemes only
  std::chrono::seconds tolerance{300};           // both directions
  HmacHexTsOptions hmac_hex_ts;
  GenericHmacOptions hmac;
};

struct SignInput {
  std::string_view id;         // message id; used by schemes that sign it
  std::int64_t timestamp = 0;  // Unix seconds of this attempt
  std::string_view body;       // raw bytes, signed exactly as sent
};

// Signs with every key it was created with (several during a secret rotation: the
// signatures are space-separated in one header where the scheme allows it: standard,
// standard-ed25519; stripe repeats "v1=" in its header). Schemes that carry a single signature
// (github, hmac-hex-ts, hmac) sign with the first secret only; their verifiers accept any.
// standard and standard-ed25519 take a mix of whsec_ and whsk_ keys (a rotation between the
// kinds): each key signs with its own algorithm (v1, v1a), all in the one header.
class Signer {
 public:
  // Secrets: standard "whsec_<base64>" (padding optional); standard-ed25519 "whsk_<base64
  // 32-byte seed>"; the others use the secret string's bytes as the HMAC key.
  static Result<Signer> create(SchemeOptions options, std::span<const std::string> secrets);

  // The headers to add to the request (including id/timestamp headers the scheme uses).
  HttpHeaders sign(const SignInput& input) const;

  const SchemeOptions& options() const;

 private:
  struct Impl;
  explicit Signer(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

enum class VerifyFailure {
  kMissingHeader,
  kBadFormat,
  kTimestampTooOld,
  kTimestampTooNew,
  kNoMatchingSignature,
};
std::string_view to_string(VerifyFailure failure);  // stable reason codes, e.g. "missing_header"

struct VerifyError {
  VerifyFailure reason;
  std::string detail;  // for a person: which header, what was wrong; never secret material
};

class Verifier {
 public:
  // Secrets as for Signer; standard-ed25519 also accepts "whpk_<base64 32-byte public key>".
  // A request verifies if any secret matches (rotation grace period).
  static Result<Verifier> create(SchemeOptions options, std::span<const std::string> secrets);

  std::expected<void, VerifyError> verify(const HttpHeaders& headers, std::string_view body,
                                          std::int64_t now_unix) const;

  const SchemeOptions& options() const;

 private:
  struct Impl;
  explicit Verifier(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

}  // namespace hookd
