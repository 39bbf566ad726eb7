// Helpers of the outbound HTTP client's value types.
#include "net/http_client_types.hpp"

#include "net/http_types.hpp"

#include <algorithm>
#include <cctype>

namespace hookd::net {

std::string_view to_string(TransportError error) {
  switch (error) {
    case TransportError::kNone:
      return "none";
    case TransportError::kInvalidRequest:
      return "invalid_request";
    case TransportError::kDnsFailure:
      return "dns_failure";
    case TransportError::kSsrfRefused:
      return "ssrf_refused";
    case TransportError::kConnectRefused:
      return "connect_refused";
    case TransportError::kConnectTimeout:
      return "connect_timeout";
    case TransportError::kTimeout:
      return "timeout";
    case TransportError::kReset:
      return "reset";
    case TransportError::kConnectionClosed:
      return "connection_closed";
    case TransportError::kProtocol:
      return "protocol_error";
    case TransportError::kTls:
      return "tls_error";
    case TransportError::kCancelled:
      return "cancelled";
    case TransportError::kOther:
      return "other";
  }
  return "other";
}

std::optional<std::string_view> AttemptResult::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (iequals(key, name)) return value;
  }
  return std::nullopt;
}

}  // namespace hookd::net
