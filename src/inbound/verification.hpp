// Verification of one inbound request against its source, on the raw body bytes, before
// anything is parsed: the core's Verifier for the signature schemes (constant-time MAC
// comparison, timestamp window), a constant-time shared-token check for `token` (and
// `cloudevents` with secrets), nothing for `none`. A rejection carries a stable reason code
// for the 401 body and the metrics, and a detail for the log; never secret material.
// Pure (the time is a parameter). Thread-safety: stateless functions.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

#include "inbound/source.hpp"
#include "net/http_types.hpp"

namespace hookd::inbound {

struct Rejection {
  std::string reason;  // missing_header, bad_format, timestamp_too_old, timestamp_too_new,
                       // no_matching_signature, bad_token
  std::string detail;  // for a person; says which header, never a hint about the secret
};

// The request headers in the core's form.
HttpHeaders core_headers(const net::HttpHeaders& headers);

std::expected<void, Rejection> verify_request(const Source& source, const net::HttpHeaders& headers,
                                              std::string_view body, std::int64_t now_unix);

}  // namespace hookd::inbound
