// One HMAC over a signed-content template, carried in one header as [prefix]<hex|base64>.
// Covers three configured schemes:
//   github       X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>, no timestamp
//   hmac-hex-ts  <signature header>: <hex HMAC-SHA256(secret, "{ts}.{body}")> + timestamp header
//   hmac         algorithm, encoding, header, prefix and template from GenericHmacOptions
// The key is the secret string's bytes. The header carries one signature, so signing uses the
// first secret only; verification accepts any of them (rotation).
#include <vector>

#include "core/crypto.hpp"
#include "core/signing_internal.hpp"
#include "hookd/encoding.hpp"

namespace hookd::signing_detail {
namespace {

using Encoding = GenericHmacOptions::Encoding;

struct Segment {
  enum class Kind { kLiteral, kId, kTimestamp, kBody };
  Kind kind;
  std::string literal;
};

struct TemplateSpec {
  crypto::HashAlgorithm algorithm = crypto::HashAlgorithm::kSha256;
  Encoding encoding = Encoding::kHex;
  std::string signature_header;
  std::string prefix;
  std::vector<Segment> segments;
  std::string timestamp_header;  // empty: the template has no {timestamp}
  std::string id_header;         // empty: the template has no {id}
};

Result<std::vector<Segment>> parse_template(std::string_view text) {
  static constexpr std::pair<std::string_view, Segment::Kind> kPlaceholders[] = {
      {"{id}", Segment::Kind::kId},
      {"{timestamp}", Segment::Kind::kTimestamp},
      {"{body}", Segment::Kind::kBody},
  };
  std::vector<Segment> segments;
  std::string literal;
  bool has_body = false;
  while (!text.empty()) {
    bool placeholder = false;
    for (const auto& [token, kind] : kPlaceholders) {
      if (!text.starts_with(token)) continue;
      if (!literal.empty()) segments.push_back({Segment::Kind::kLiteral, std::move(literal)});
      literal.clear();
      segments.push_back({kind, {}});
      has_body = has_body || kind == Segment::Kind::kBody;
      text.remove_prefix(token.size());
      placeholder = true;
      break;
    }
    if (!placeholder) {
      literal += text.front();
      text.remove_prefix(1);
    }
  }
  if (!literal.empty()) segments.push_back({Segment::Kind::kLiteral, std::move(literal)});
  if (!has_body) {
    return fail(ErrorCode::kInvalidArgument, "signed-content template must contain {body}");
  }
  return segments;
}

bool uses(const std::vector<Segment>& segments, Segment::Kind kind) {
  for (const Segment& segment : segments) {
    if (segment.kind == kind) return true;
  }
  return false;
}

Result<TemplateSpec> make_spec(const SchemeOptions& options) {
  TemplateSpec spec;
  if (options.kind == SchemeKind::kGithub) {
    spec.signature_header = "X-Hub-Signature-256";
    spec.prefix = "sha256=";
    spec.segments = {{Segment::Kind::kBody, {}}};
    return spec;
  }
  if (options.kind == SchemeKind::kHmacHexTs) {
    spec.signature_header = options.hmac_hex_ts.signature_header;
    spec.timestamp_header = options.hmac_hex_ts.timestamp_header;
    spec.segments = {{Segment::Kind::kTimestamp, {}},
                     {Segment::Kind::kLiteral, "."},
                     {Segment::Kind::kBody, {}}};
  } else {
    const GenericHmacOptions& generic = options.hmac;
    spec.algorithm = generic.algorithm == GenericHmacOptions::Algorithm::kSha512
                         ? crypto::HashAlgorithm::kSha512
                         : crypto::HashAlgorithm::kSha256;
    spec.encoding = generic.encoding;
    spec.signature_header = generic.signature_header;
    spec.prefix = generic.signature_prefix;
    auto segments = parse_template(generic.content_template);
    if (!segments) return std::unexpected(segments.error());
    spec.segments = *std::move(segments);
    if (uses(spec.segments, Segment::Kind::kTimestamp)) {
      spec.timestamp_header = generic.timestamp_header;
      if (spec.timestamp_header.empty()) {
        return fail(ErrorCode::kInvalidArgument, "timestamp header name is empty");
      }
    }
    if (uses(spec.segments, Segment::Kind::kId)) {
      spec.id_header = generic.id_header;
      if (spec.id_header.empty()) {
        return fail(ErrorCode::kInvalidArgument, "id header name is empty");
      }
    }
  }
  if (spec.signature_header.empty()) {
    return fail(ErrorCode::kInvalidArgument, "signature header name is empty");
  }
  if (options.kind == SchemeKind::kHmacHexTs && spec.timestamp_header.empty()) {
    return fail(ErrorCode::kInvalidArgument, "timestamp header name is empty");
  }
  return spec;
}

class TemplateHmacScheme final : public Scheme {
 public:
  TemplateHmacScheme(TemplateSpec spec, std::chrono::seconds tolerance,
                     std::vector<crypto::HmacKey> keys)
      : spec_(std::move(spec)), tolerance_(tolerance), keys_(std::move(keys)) {}

  HttpHeaders sign(const SignInput& input) const override {
    const std::string ts = std::to_string(input.timestamp);
    const crypto::Digest digest = mac(keys_.front(), input.id, ts, input.body);
    HttpHeaders headers;
    if (!spec_.id_header.empty()) headers.push_back({spec_.id_header, std::string(input.id)});
    if (!spec_.timestamp_header.empty()) headers.push_back({spec_.timestamp_header, ts});
    headers.push_back({spec_.signature_header, spec_.prefix + encode(digest)});
    return headers;
  }

  std::expected<void, VerifyError> verify(const HttpHeaders& headers, std::string_view body,
                                          std::int64_t now_unix) const override {
    const auto signature = read_header(headers, spec_.signature_header);
    if (!signature) return std::unexpected(signature.error());
    std::string_view id;
    if (!spec_.id_header.empty()) {
      const auto id_value = read_header(headers, spec_.id_header);
      if (!id_value) return std::unexpected(id_value.error());
      id = *id_value;
    }
    std::string ts;
    if (!spec_.timestamp_header.empty()) {
      const auto timestamp = read_timestamp(headers, spec_.timestamp_header, now_unix, tolerance_);
      if (!timestamp) return std::unexpected(timestamp.error());
      ts = std::to_string(*timestamp);
    }
    const auto candidate = decode(trim_spaces(*signature));
    if (!candidate) {
      return reject(VerifyFailure::kBadFormat,
                    spec_.signature_header + " is not " + spec_.prefix +
                        (spec_.encoding == Encoding::kHex ? "<hex>" : "<base64>"));
    }
    for (const crypto::HmacKey& key : keys_) {
      if (crypto::equal_constant_time(mac(key, id, ts, body).view(), *candidate)) return {};
    }
    return reject(VerifyFailure::kNoMatchingSignature, spec_.signature_header + " does not match");
  }

 private:
  crypto::Digest mac(const crypto::HmacKey& key, std::string_view id, std::string_view ts,
                     std::string_view body) const {
    crypto::HmacStream stream = key.begin();
    for (const Segment& segment : spec_.segments) {
      switch (segment.kind) {
        case Segment::Kind::kLiteral:
          stream.update(segment.literal);
          break;
        case Segment::Kind::kId:
          stream.update(id);
          break;
        case Segment::Kind::kTimestamp:
          stream.update(ts);
          break;
        case Segment::Kind::kBody:
          stream.update(body);
          break;
      }
    }
    return stream.finish();
  }

  std::string encode(const crypto::Digest& digest) const {
    return spec_.encoding == Encoding::kHex ? hex_encode(digest.view())
                                            : base64_encode(digest.view());
  }

  std::optional<Bytes> decode(std::string_view value) const {
    if (value.size() < spec_.prefix.size() ||
        !iequals(value.substr(0, spec_.prefix.size()), spec_.prefix)) {
      return std::nullopt;
    }
    value.remove_prefix(spec_.prefix.size());
    return spec_.encoding == Encoding::kHex ? hex_decode(value) : base64_decode(value);
  }

  TemplateSpec spec_;
  std::chrono::seconds tolerance_;
  std::vector<crypto::HmacKey> keys_;
};

}  // namespace

Result<SchemePtr> make_template_hmac_scheme(const SchemeOptions& options, Secrets secrets) {
  auto spec = make_spec(options);
  if (!spec) return std::unexpected(spec.error());
  std::vector<crypto::HmacKey> keys;
  for (std::size_t i = 0; i < secrets.size(); ++i) {
    auto key = crypto::HmacKey::create(spec->algorithm, as_bytes(secrets[i]));
    if (!key) {
      return fail(ErrorCode::kInvalidArgument, "secret #" + std::to_string(i + 1) + " is empty");
    }
    keys.push_back(*std::move(key));
  }
  return std::make_shared<const TemplateHmacScheme>(*std::move(spec), options.tolerance,
                                                    std::move(keys));
}

}  // namespace hookd::signing_detail
