#include "inbound/source.hpp"

#include "config/names.hpp"
#include "config/retry_policy.hpp"

namespace hookd::inbound {

std::optional<SchemeOptions> scheme_options(const config::SourceConfig& c) {
  SchemeOptions o;
  o.tolerance = std::chrono::duration_cast<std::chrono::seconds>(c.tolerance);
  switch (c.scheme) {
    case config::Scheme::kStandard:
      o.kind = SchemeKind::kStandard;
      break;
    case config::Scheme::kStandardEd25519:
      o.kind = SchemeKind::kStandardEd25519;
      break;
    case config::Scheme::kStripe:
      o.kind = SchemeKind::kStripe;
      break;
    case config::Scheme::kGithub:
      o.kind = SchemeKind::kGithub;
      break;
    case config::Scheme::kHmacHexTs:
      o.kind = SchemeKind::kHmacHexTs;
      o.hmac_hex_ts.signature_header = c.hmac_hex_ts.signature_header;
      o.hmac_hex_ts.timestamp_header = c.hmac_hex_ts.timestamp_header;
      break;
    case config::Scheme::kHmac:
      o.kind = SchemeKind::kHmac;
      o.hmac.algorithm = c.hmac.algorithm == config::HmacAlgorithm::kSha512
                             ? GenericHmacOptions::Algorithm::kSha512
                             : GenericHmacOptions::Algorithm::kSha256;
      o.hmac.encoding = c.hmac.encoding == config::SignatureEncoding::kBase64
                            ? GenericHmacOptions::Encoding::kBase64
                            : GenericHmacOptions::Encoding::kHex;
      o.hmac.signature_header = c.hmac.signature_header;
      o.hmac.signature_prefix = c.hmac.signature_prefix;
      o.hmac.content_template = c.hmac.content_template;
      o.hmac.timestamp_header = c.hmac.timestamp_header;
      o.hmac.id_header = c.hmac.id_header;
      break;
    case config::Scheme::kCloudEvents:
    case config::Scheme::kToken:
    case config::Scheme::kNone:
      return std::nullopt;
  }
  return o;
}

namespace {

std::string default_location(const config::SourceConfig& c) {
  if (!c.event_id.empty()) return c.event_id;
  if (c.scheme == config::Scheme::kHmac && !c.hmac.id_header.empty()) return c.hmac.id_header;
  return std::string(config::default_event_id(c.scheme));
}

Status with_source(const config::SourceConfig& c, Status s) {
  if (!s) s.error().message = "source " + c.name + ": " + s.error().message;
  return s;
}

}  // namespace

Result<Source> Source::create(const config::SourceConfig& c) {
  std::optional<Verifier> verifier;
  if (auto options = scheme_options(c)) {
    auto v = Verifier::create(*options, c.secrets);
    if (!v) return std::unexpected(with_source(c, std::unexpected(v.error())).error());
    verifier = std::move(*v);
  }
  std::vector<std::string> forward_secrets{c.forward.secret};
  auto signer = Signer::create(SchemeOptions{}, forward_secrets);
  if (!signer) {
    return std::unexpected(with_source(c, fail(ErrorCode::kInvalidArgument,
                                               "forward.secret: " + signer.error().message))
                               .error());
  }
  auto retry = RetryPolicy::create(config::retry_policy_config(c.retry));
  if (!retry) return std::unexpected(with_source(c, std::unexpected(retry.error())).error());
  std::optional<BusinessKeyTemplate> business_key;
  if (!c.business_key.empty()) {
    auto t = BusinessKeyTemplate::parse(c.business_key);
    if (!t) return std::unexpected(with_source(c, std::unexpected(t.error())).error());
    business_key = std::move(*t);
  }
  const auto location = default_location(c);
  if (location.empty()) {
    return std::unexpected(
        with_source(c, fail(ErrorCode::kInvalidArgument, "no event_id location")).error());
  }
  return Source{c,
                std::move(verifier),
                std::move(*signer),
                std::move(*retry),
                std::move(business_key),
                {c.terminal_states.begin(), c.terminal_states.end()},
                location};
}

Result<std::vector<std::shared_ptr<const Source>>> build_sources(
    const std::vector<config::SourceConfig>& configs) {
  std::vector<std::shared_ptr<const Source>> out;
  for (const auto& c : configs) {
    auto s = Source::create(c);
    if (!s) return std::unexpected(s.error());
    out.push_back(std::make_shared<const Source>(std::move(*s)));
  }
  return out;
}

}  // namespace hookd::inbound
