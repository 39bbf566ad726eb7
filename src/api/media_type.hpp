// The API's check of a request body's media type: every API body is JSON, so a body sent as
// something else — text/plain, application/x-www-form-urlencoded (curl -d's default), a
// multipart form — or in a content coding hookd does not decode (gzip) is refused with 415
// instead of being parsed as if it were JSON. JSON is `application/json` or a structured
// `application/<name>+json` type (RFC 6839), any parameters (charset) allowed, names compared
// case-insensitively. A body without Content-Type is examined as JSON (RFC 9110 §8.3 lets a
// recipient do so), and a request without a body is never refused. The Svix SDKs send
// `content-type: application/json` with every body.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string_view>

#include "api/problem.hpp"
#include "net/http_types.hpp"

namespace hookd::api {

bool is_json_media_type(std::string_view content_type);

// A 415 problem for a body that is not JSON as described above; nullopt when it is fine.
std::optional<ApiError> body_media_type_error(const net::HttpRequest& request);

}  // namespace hookd::api
