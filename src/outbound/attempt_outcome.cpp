// Classification of one attempt's result (see attempt_outcome.hpp).
#include "outbound/attempt_outcome.hpp"

#include <string>

namespace hookd::outbound {

using net::TransportError;

std::string_view metric_result(const net::AttemptResult& r) {
  switch (r.error) {
    case TransportError::kNone:
      if (r.status >= 200 && r.status < 300) return "success";
      if (r.status >= 400 && r.status < 500) return "http_4xx";
      return "http_5xx";
    case TransportError::kSsrfRefused:
      return "refused";
    case TransportError::kConnectTimeout:
    case TransportError::kTimeout:
      return "timeout";
    default:
      return "network";
  }
}

EndpointHealth health_of(const net::AttemptResult& r) {
  if (r.error == TransportError::kSsrfRefused || r.error == TransportError::kCancelled ||
      r.error == TransportError::kInvalidRequest) {
    return EndpointHealth::kNeutral;
  }
  if (!r.ok()) return EndpointHealth::kFailed;
  if (r.status == 408 || r.status == 429 || r.status >= 500) return EndpointHealth::kFailed;
  return EndpointHealth::kHealthy;
}

std::optional<Duration> retry_after_of(const net::AttemptResult& r, TimePoint now) {
  if (r.error != TransportError::kNone) return std::nullopt;
  const auto value = r.header("retry-after");
  if (!value) return std::nullopt;
  return parse_retry_after(*value, now);
}

store::AttemptReport::Next next_state(RetryDecision::Kind kind) {
  switch (kind) {
    case RetryDecision::Kind::kDelivered:
      return store::AttemptReport::Next::kDelivered;
    case RetryDecision::Kind::kRetry:
      return store::AttemptReport::Next::kRetry;
    default:
      return store::AttemptReport::Next::kDead;
  }
}

store::Attempt attempt_row(const net::AttemptResult& r, const std::string& url, TimePoint started,
                           std::size_t body_limit) {
  store::Attempt a;
  a.attempted_at = started.time_since_epoch().count();
  if (r.status != 0) a.response_status = r.status;
  for (const auto& [name, value] : r.headers) a.response_headers.emplace(name, value);
  a.response_body = r.body.substr(0, body_limit);
  a.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(r.duration).count();
  if (!r.ok()) {
    a.error = std::string(net::to_string(r.error));
    if (!r.error_detail.empty()) *a.error += ": " + r.error_detail;
  }
  a.url = url;
  return a;
}

}  // namespace hookd::outbound
