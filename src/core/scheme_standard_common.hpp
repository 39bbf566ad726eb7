// What the Standard Webhooks schemes (v1 HMAC and v1a Ed25519) share: header names in both
// namings, reading id/timestamp/signature from a request, the "{id}.{ts}.{body}" content and
// the space-separated "<version>,<base64>" signature list.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

#include "core/signing_internal.hpp"
#include "hookd/encoding.hpp"

namespace hookd::signing_detail {

struct StandardHeaderNames {
  std::string_view id;
  std::string_view timestamp;
  std::string_view signature;
};
// The names of one family: svix-* for kSvix, webhook-* otherwise (kBoth too).
StandardHeaderNames standard_header_names(HeaderNaming naming);

struct StandardRequest {
  std::string_view id;
  std::int64_t timestamp = 0;
  std::string_view signatures;  // the raw signature header
};

// Accepts either naming (the configured one first; kBoth: webhook-* first); the family is
// the one whose signature header is present. Checks presence of all three headers and the
// timestamp window.
std::expected<StandardRequest, VerifyError> read_standard_request(const HttpHeaders& headers,
                                                                  const SchemeOptions& options,
                                                                  std::int64_t now_unix);

// id, timestamp and signature headers of the family `naming` names; kBoth: both families,
// webhook-* first, with the same values.
HttpHeaders standard_headers(HeaderNaming naming, std::string_view id, std::int64_t timestamp,
                             std::string signatures);

// Calls fn(decoded signature bytes) for each entry "<version>,<base64>" whose version matches
// and whose base64 decodes; fn returns true to stop. Entries of other versions are ignored.
// Returns false if the header has no "<version>,<value>" entry at all (bad format).
template <class Fn>
bool for_each_standard_signature(std::string_view header, std::string_view version, Fn&& fn) {
  bool well_formed = false;
  bool stop = false;
  for_each_token(header, ' ', [&](std::string_view entry) {
    const std::size_t comma = entry.find(',');
    if (comma == std::string_view::npos || comma == 0) return;
    well_formed = true;
    if (stop || entry.substr(0, comma) != version) return;
    if (auto decoded = base64_decode(entry.substr(comma + 1))) stop = fn(ByteView(*decoded));
  });
  return well_formed;
}

std::string standard_content(std::string_view id, std::int64_t timestamp, std::string_view body);

// "whsec_<base64>" / "whsk_..." etc.: strips the prefix (optional if prefix_optional) and
// decodes; nullopt if the rest is not base64 or is empty.
std::optional<Bytes> decode_prefixed_key(std::string_view secret, std::string_view prefix,
                                         bool prefix_optional);

}  // namespace hookd::signing_detail
