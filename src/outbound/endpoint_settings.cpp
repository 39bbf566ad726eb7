// Endpoint-derived delivery settings: retry policy JSON, signer, attempt request.
#include "outbound/endpoint_settings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace hookd::outbound {
namespace {

using Json = nlohmann::json;

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

// Headers the dispatcher sets itself; an endpoint's custom headers may not replace them.
bool reserved_header(std::string_view name) {
  static constexpr std::array<std::string_view, 11> kReserved = {
      "content-type", "content-length",    "user-agent",        "host",
      "webhook-id",   "webhook-timestamp", "webhook-signature", "webhook-sequence",
      "svix-id",      "svix-timestamp",    "svix-signature"};
  return std::ranges::any_of(kReserved, [&](std::string_view r) { return iequals(r, name); });
}

Status apply_retry_json(const Json& j, RetryPolicyConfig& c) {
  if (!j.is_object()) return fail(ErrorCode::kInvalidArgument, "retry policy must be an object");
  auto ms = [](const Json& v) { return Duration(v.get<std::int64_t>()); };
  if (j.contains("maxAttempts")) c.max_attempts = j.at("maxAttempts").get<int>();
  if (j.contains("maxAgeMs")) c.max_age = ms(j.at("maxAgeMs"));
  if (j.contains("baseDelayMs")) c.base_delay = ms(j.at("baseDelayMs"));
  if (j.contains("maxDelayMs")) c.max_delay = ms(j.at("maxDelayMs"));
  if (j.contains("honourRetryAfter")) c.honour_retry_after = j.at("honourRetryAfter").get<bool>();
  if (j.contains("scheduleMs")) {
    c.schedule.clear();
    for (const auto& v : j.at("scheduleMs")) c.schedule.push_back(ms(v));
    c.backoff = BackoffKind::kSchedule;
  }
  if (j.contains("statusOverrides")) {
    for (const auto& [selector, action] : j.at("statusOverrides").items()) {
      if (auto added = c.overrides.add(selector, action.get<std::string>()); !added) return added;
    }
  }
  return {};
}

std::vector<std::string> live_secrets(const store::EndpointSecrets& s, TimePoint now) {
  std::vector<std::string> secrets{s.current};
  const auto now_ms = now.time_since_epoch().count();
  if (s.previous && !s.previous->empty() && s.previous_expires_at.value_or(0) > now_ms) {
    secrets.push_back(*s.previous);
  }
  return secrets;
}

}  // namespace

Result<RetryPolicyConfig> retry_config_for(const std::optional<std::string>& retry_json,
                                           const RetryPolicyConfig& defaults) {
  RetryPolicyConfig config = defaults;
  if (!retry_json || retry_json->empty()) return config;
  const Json j = Json::parse(*retry_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return fail(ErrorCode::kInvalidArgument, "retry policy is not JSON");
  try {
    if (auto applied = apply_retry_json(j, config); !applied)
      return std::unexpected(applied.error());
  } catch (const Json::exception& e) {
    return fail(ErrorCode::kInvalidArgument, std::string("retry policy: ") + e.what());
  }
  return config;
}

Result<Signer> signer_for(const store::Endpoint& endpoint, TimePoint now) {
  SchemeOptions options;
  options.kind = endpoint.secrets.current.starts_with("whsk_") ? SchemeKind::kStandardEd25519
                                                               : SchemeKind::kStandard;
  // The API lets only the three names in; anything else (a hand-edited row) sends both.
  options.naming = parse_header_naming(endpoint.header_naming).value_or(HeaderNaming::kBoth);
  const auto secrets = live_secrets(endpoint.secrets, now);
  return Signer::create(options, secrets);
}

net::OutboundRequest build_request(const store::Endpoint& endpoint, const store::Message& message,
                                   const Signer& signer, TimePoint now,
                                   const RequestDefaults& defaults) {
  net::OutboundRequest request;
  request.url = endpoint.url;
  request.body = message.payload;
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  for (auto& h : signer.sign({message.id, seconds, message.payload})) {
    request.headers.emplace_back(std::move(h.name), std::move(h.value));
  }
  if (message.ordering_key && message.sequence) {
    request.headers.emplace_back("webhook-sequence", std::to_string(*message.sequence));
  }
  request.headers.emplace_back("content-type", "application/json");
  request.headers.emplace_back("user-agent", defaults.user_agent);
  for (const auto& [name, value] : endpoint.headers) {
    if (!reserved_header(name)) request.headers.emplace_back(name, value);
  }
  request.connect_timeout = endpoint.connect_timeout_ms
                                ? std::chrono::milliseconds(*endpoint.connect_timeout_ms)
                                : defaults.connect_timeout;
  request.total_timeout = endpoint.total_timeout_ms
                              ? std::chrono::milliseconds(*endpoint.total_timeout_ms)
                              : defaults.total_timeout;
  return request;
}

}  // namespace hookd::outbound
