// Value types of hookd's outbound HTTP client (see http_client.hpp): the request to send,
// the outcome of one attempt, the classified transport error, and the SSRF address guard.
// Thread-safety: plain value types; an AddressGuard is called on the client's thread and
// must be safe to call from there (keep it pure or internally synchronized).
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookd::net {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

class SpooledBody;  // body_spool.hpp

// One request to send. Exactly `body` is sent (no re-encoding), or, when `body_file` is set,
// that file's content, streamed; timeouts left empty take the client's defaults
// (HttpClientOptions).
struct OutboundRequest {
  std::string method = "POST";
  std::string url;
  HeaderList headers;
  std::string body;
  std::shared_ptr<const SpooledBody> body_file{};  // instead of `body` (then empty)
  // When set, a response body longer than this many bytes is spooled to a temporary file
  // (HttpClientOptions::spool_dir) and comes back as AttemptResult::body_file; body_limit
  // still bounds it.
  std::optional<std::size_t> spool_response_above{};
  std::optional<std::chrono::milliseconds> connect_timeout;
  std::optional<std::chrono::milliseconds> total_timeout;
};

// Why an attempt got no (complete) HTTP response. Values, not exceptions: the delivery
// policy decides what is retried.
enum class TransportError {
  kNone,              // an HTTP status was received (any status, also 3xx/4xx/5xx)
  kInvalidRequest,    // bad URL, unsupported scheme (only http/https), bad header/method
  kDnsFailure,        // the host name did not resolve
  kSsrfRefused,       // every resolved address was refused by the AddressGuard
  kConnectRefused,    // TCP connect failed (refused / unreachable)
  kConnectTimeout,    // no connection within the connect timeout, or still waiting for a
                      // free pool connection when the total timeout ran out
  kTimeout,           // the request was sent but no complete response within the total timeout
  kReset,             // connection reset / send or receive error while talking
  kConnectionClosed,  // peer closed the connection before a response (request may be processed)
  kProtocol,          // the peer answered something that is not HTTP
  kTls,               // TLS handshake or certificate verification failed
  kCancelled,         // the client was stopped before the attempt finished
  kOther,             // anything else libcurl reports; `error_detail` says what
};

std::string_view to_string(TransportError error);

// The outcome of one attempt: either a status (error == kNone) or a transport error.
struct AttemptResult {
  TransportError error = TransportError::kNone;
  std::string error_detail;  // libcurl's message or the guard's reason; empty when ok
  int status = 0;            // HTTP status; 0 when none arrived (may be set with an error when the
                             // headers arrived but the rest did not: then the attempt is not ok())
  HeaderList headers;        // response headers of the final response, in wire order
  std::string body;          // the first `body_limit` bytes of the response body
  // Instead of `body` (then empty) when the request asked for spooling and the body was
  // longer than its threshold: the kept bytes, their size and SHA-256.
  std::shared_ptr<const SpooledBody> body_file{};
  bool truncated = false;                 // the body was longer than the limit
  std::chrono::microseconds duration{0};  // from send() until done
  bool request_sent = false;  // the request started going on the wire (a connection existed)

  bool ok() const { return error == TransportError::kNone; }
  // First header with this name (case-insensitive), if any.
  std::optional<std::string_view> header(std::string_view name) const;
};

// The verdict of an AddressGuard on one resolved address.
struct AddressVerdict {
  bool allowed = true;
  std::string reason;  // why it was refused (for the attempt log)
};

// Checked for every address libcurl is about to connect to (after resolving, before
// connecting). Refusing every address fails the attempt with kSsrfRefused.
using AddressGuard = std::function<AddressVerdict(const sockaddr* address, socklen_t length)>;

}  // namespace hookd::net
