// What the dispatcher derives from an endpoint record: its retry policy (the endpoint's
// retry JSON over the configured defaults), its Signer (current + still-valid previous
// secret; Ed25519 for whsk_ secrets; the endpoint's header naming), and the HTTP request of
// one attempt (signature, webhook-sequence, custom headers, content type, user agent).
//
// Endpoint retry JSON (all keys optional):
//   {"maxAttempts": 5, "maxAgeMs": 3600000, "baseDelayMs": 1000, "maxDelayMs": 60000,
//    "scheduleMs": [5000, 300000], "honourRetryAfter": true,
//    "statusOverrides": {"404": "retry", "4xx": "dead_letter"}}
// Header naming (store::Endpoint::header_naming): "both" (the default) sends webhook-id/
// -timestamp/-signature and svix-id/-timestamp/-signature with the same values, so receivers
// written for Standard Webhooks and for Svix both verify; "webhook" or "svix" one family only.
// Pure functions (time is a parameter). Thread-safety: stateless.
#pragma once

#include <chrono>
#include <string>

#include "hookd/result.hpp"
#include "hookd/retry.hpp"
#include "hookd/signing.hpp"
#include "net/http_client_types.hpp"
#include "store/model.hpp"

namespace hookd::outbound {

// The endpoint's policy config: `defaults` with the JSON's keys applied.
// kInvalidArgument when the JSON is malformed or a value has the wrong type.
Result<RetryPolicyConfig> retry_config_for(const std::optional<std::string>& retry_json,
                                           const RetryPolicyConfig& defaults);

// Signs with the current secret and, during a rotation, the previous one until it expires.
Result<Signer> signer_for(const store::Endpoint& endpoint, TimePoint now);

struct RequestDefaults {
  std::string user_agent = "hookd/0.1";
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds total_timeout{10'000};
};

// The request for one attempt at `now` (webhook-timestamp = now in seconds).
net::OutboundRequest build_request(const store::Endpoint& endpoint, const store::Message& message,
                                   const Signer& signer, TimePoint now,
                                   const RequestDefaults& defaults);

}  // namespace hookd::outbound
