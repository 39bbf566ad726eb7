// Checks on a request's head as its bytes arrive, before Beast parses the whole header: so
// bytes that can never become a request (a TLS hello, a binary protocol, a bare-LF line,
// junk after a valid request line) are refused at once with 400 instead of being held until
// read_timeout, and versions are handled as RFC 9110 §2.5 asks — HTTP/1.x with x > 1 is
// read as HTTP/1.1 (the minor digit is rewritten before Beast, which knows only 1.0 and 1.1,
// parses the line), another major version is refused with 505. Also the Host rules of RFC
// 9112 §3.2: an HTTP/1.1 request needs exactly one Host field with a valid value.
// Nothing here is stricter than Beast's own request-line grammar except those two points.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hookd::net {

// A method longer than this is not one hookd serves; the line is refused as malformed
// without waiting for the rest of it.
inline constexpr std::size_t kMaxMethodBytes = 32;

struct RequestLineCheck {
  enum class Verdict {
    kIncomplete,           // a valid prefix: read more
    kComplete,             // a whole valid line (`length` bytes, CRLF included)
    kMalformed,            // 400: `reason` says what is wrong
    kTargetTooLong,        // 414: the target passed max_target_bytes
    kVersionNotSupported,  // 505: HTTP/<major>.<minor> with a major version other than 1
  };
  Verdict verdict = Verdict::kIncomplete;
  std::size_t length = 0;
  // When set, the offset of the minor version digit of an HTTP/1.x line with x > 1: the
  // caller rewrites it to '1' so the request is read as HTTP/1.1.
  std::optional<std::size_t> minor_digit_at;
  std::string reason;
};

// `bytes` starts at the request line (leading empty lines already skipped). RFC 9112 §3:
// method SP request-target SP HTTP-version CRLF.
RequestLineCheck check_request_line(std::string_view bytes, std::size_t max_target_bytes);

// A complete header field line (without its CRLF): nullopt when it may be one (Beast judges
// the rest), else why it cannot: it must start with a field name of token characters followed
// by ':' (a line starting with SP or HTAB is obs-fold, left to Beast).
std::optional<std::string> bad_field_line(std::string_view line);

// RFC 9112 §3.2 / RFC 3986 §3.2.2: uri-host [ ":" port ]; empty is allowed.
bool valid_host_value(std::string_view value);

}  // namespace hookd::net
