// The captured-request file `hookd verify` reads: JSON
//   {"headers": {"Name": "value", "Multi": ["v1", "v2"]}, "body": "<raw body>"}
// or, for bodies that are not UTF-8 text, "body_base64": "<base64 of the raw bytes>".
// Thread-safety: a pure function over values.
#pragma once

#include <string>
#include <string_view>

#include "hookd/result.hpp"
#include "hookd/signing.hpp"

namespace hookd::cli {

struct CapturedRequest {
  HttpHeaders headers;  // in file order; an array value gives one header per element
  std::string body;     // the exact bytes that were signed
};

// kInvalidArgument saying what is wrong (not JSON, not an object, a header value that is not
// a string, no body or both body forms, bad base64).
Result<CapturedRequest> parse_request_file(std::string_view json_text);

}  // namespace hookd::cli
