#include "inbound/source.hpp"

namespace hookd::inbound {
namespace {

Status with_source(const SourceSettings& c, Status s) {
  if (!s) s.error().message = "source " + c.name + ": " + s.error().message;
  return s;
}

}  // namespace

Result<Source> Source::create(const SourceSettings& c) {
  std::optional<Verifier> verifier;
  if (c.verification == Verification::kScheme) {
    auto v = Verifier::create(c.scheme, c.secrets);
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
  auto retry = RetryPolicy::create(c.retry);
  if (!retry) return std::unexpected(with_source(c, std::unexpected(retry.error())).error());
  std::optional<BusinessKeyTemplate> business_key;
  if (!c.business_key.empty()) {
    auto t = BusinessKeyTemplate::parse(c.business_key);
    if (!t) return std::unexpected(with_source(c, std::unexpected(t.error())).error());
    business_key = std::move(*t);
  }
  if (c.event_id.empty()) {
    return std::unexpected(
        with_source(c, fail(ErrorCode::kInvalidArgument, "no event_id location")).error());
  }
  return Source{c,
                std::move(verifier),
                std::move(*signer),
                std::move(*retry),
                std::move(business_key),
                {c.terminal_states.begin(), c.terminal_states.end()}};
}

Result<std::vector<std::shared_ptr<const Source>>> build_sources(
    const std::vector<SourceSettings>& settings) {
  std::vector<std::shared_ptr<const Source>> out;
  for (const auto& c : settings) {
    auto s = Source::create(c);
    if (!s) return std::unexpected(s.error());
    out.push_back(std::make_shared<const Source>(std::move(*s)));
  }
  return out;
}

}  // namespace hookd::inbound
