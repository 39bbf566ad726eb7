// HTTP request/response value types shared by the server adapter and the layers above it
// (API handlers, inbound gateway, idempotency proxy). They carry no I/O.
// The request body is exactly the bytes received (signature verification runs on them),
// header values are kept as received (minus the surrounding whitespace HTTP strips).
// Under the server's spool prefix (the idempotency gateway) a large request body arrives as
// `spooled` (a temporary file, body_spool.hpp) instead of `body`; a response may likewise
// carry `file_body`, which the server streams from the file.
// Thread-safety: plain value types; distinct objects may be used from distinct threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookd::net {

class SpooledBody;

struct HttpHeader {
  std::string name;
  std::string value;
};

// An ordered list of header fields; names are compared case-insensitively (RFC 9110 5.1).
class HttpHeaders {
 public:
  // The first value of `name`, or nullopt.
  std::optional<std::string_view> get(std::string_view name) const;
  // Every value of `name` in order of appearance.
  std::vector<std::string_view> get_all(std::string_view name) const;
  bool contains(std::string_view name) const { return get(name).has_value(); }

  void add(std::string name, std::string value);
  // Replaces every field called `name` with one field.
  void set(std::string_view name, std::string value);
  void remove(std::string_view name);

  void reserve(std::size_t count) { fields_.reserve(count); }
  std::size_t size() const { return fields_.size(); }
  bool empty() const { return fields_.empty(); }
  auto begin() const { return fields_.begin(); }
  auto end() const { return fields_.end(); }

 private:
  std::vector<HttpHeader> fields_;
};

bool iequals(std::string_view a, std::string_view b);

// Decodes %XX escapes (and '+' as space when `plus_is_space`, for form/query values).
// Returns nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space = false);

struct HttpRequest {
  std::string method;  // as sent, e.g. "GET"
  std::string target;  // origin-form as sent: path plus optional "?query"
  int version = 11;    // 10 or 11
  HttpHeaders headers;
  std::string body;  // the exact bytes received (chunked framing removed)
  // Set instead of `body` (which is then empty) when the body was spooled to a file.
  std::shared_ptr<const SpooledBody> spooled;
  std::string remote_address;
  std::uint16_t remote_port = 0;

  // The target up to '?', still percent-encoded.
  std::string_view path() const;
  // The part after '?', or empty; still percent-encoded.
  std::string_view query() const;
  // The decoded value of the first query parameter `name` ('+' means space), or nullopt.
  std::optional<std::string> query_param(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  HttpHeaders headers;
  std::string body;
  // When set, the body sent is this file's content (and `body` is ignored).
  std::shared_ptr<const SpooledBody> file_body;
};

// An RFC 9457 problem response: application/problem+json with type, title, status, detail.
// `type` defaults to "about:blank"; `title` defaults to the status' reason phrase.
HttpResponse problem_response(int status, std::string_view detail, std::string_view type = {},
                              std::string_view title = {});

// Escapes `text` for use inside a JSON string literal (without the quotes).
std::string json_escape(std::string_view text);

}  // namespace hookd::net
