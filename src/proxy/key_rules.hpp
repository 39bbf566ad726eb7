// The idempotency gateway's pure rules (no I/O): reading the Idempotency-Key header, the
// request's fingerprint and tenant scope, what an existing key means for a new request, which
// headers cross the proxy, the upstream URL of a proxied path, and the problem+json answers.
// Thread-safety: pure functions and constants.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hookd/result.hpp"
#include "net/http_types.hpp"
#include "store/model.hpp"

namespace hookd::proxy {

inline constexpr std::string_view kProxyPrefix = "/proxy/";
inline constexpr std::size_t kMaxKeyLength = 255;

// Problem types (RFC 9457 `type`), one per refusal of the gateway.
namespace problem {
inline constexpr std::string_view kKeyMissing =
    "https://hookd.dev/problems/idempotency-key-missing";
inline constexpr std::string_view kKeyInvalid =
    "https://hookd.dev/problems/idempotency-key-invalid";
inline constexpr std::string_view kMismatch = "https://hookd.dev/problems/idempotency-key-mismatch";
inline constexpr std::string_view kInProgress = "https://hookd.dev/problems/request-in-progress";
inline constexpr std::string_view kUnknown = "https://hookd.dev/problems/outcome-unknown";
inline constexpr std::string_view kNotReplayable = "https://hookd.dev/problems/not-replayable";
inline constexpr std::string_view kUnreachable = "https://hookd.dev/problems/upstream-unreachable";
inline constexpr std::string_view kTooLarge = "https://hookd.dev/problems/response-too-large";
inline constexpr std::string_view kUnavailable = "https://hookd.dev/problems/storage-unavailable";
inline constexpr std::string_view kNoProxy = "https://hookd.dev/problems/unknown-proxy";
}  // namespace problem

// The key from an Idempotency-Key value: a Structured-Field string ("...", as the IETF draft
// says) or a bare token (as Stripe's clients send). 1..255 visible ASCII characters, else an
// error saying why.
Result<std::string> parse_idempotency_key(std::string_view header_value);

// SHA-256 (hex) over method, target (path + query, as sent) and the body's SHA-256 (hex,
// body_sha256()), each part length-prefixed.
std::string request_fingerprint(std::string_view method, std::string_view target,
                                std::string_view body_sha256_hex);

// The hex SHA-256 of the request's body: of `body`, or the one computed while it was spooled
// (the same value for the same bytes).
std::string body_sha256(const net::HttpRequest& request);

// The tenant of a request: "" when the proxy has one tenant (tenant_header ""), else the hex
// SHA-256 of that header's value (an absent header is the empty value).
std::string tenant_of(const net::HttpHeaders& headers, std::string_view tenant_header);

// What an existing row (not claimed by this request) means for a request with `fingerprint`.
enum class Verdict { kReplay, kMismatch, kInProgress, kUnknown, kNotReplayable };
Verdict verdict_for(const store::ProxyKey& key, std::string_view fingerprint);

// Hop-by-hop fields (RFC 9110 7.6.1), the fields named in Connection, and the framing fields
// the server and client set themselves (Host, Content-Length) are not forwarded either way.
bool is_hop_by_hop(std::string_view name, const net::HttpHeaders& headers);
bool is_hop_by_hop(std::string_view name, const store::HeaderPairs& headers);
// An upstream answer's headers without the hop-by-hop ones, in wire order (what is stored,
// replayed and passed on).
store::HeaderPairs end_to_end_headers(const store::HeaderPairs& headers);

// "/proxy/<name>/<rest>?q" -> name and "/<rest>?q"; nullopt when the path is not under the
// prefix or the name is empty. The rest is "/" when nothing follows the name.
struct ProxiedTarget {
  std::string name;
  std::string rest;  // starts with '/', query kept as sent
};
std::optional<ProxiedTarget> split_proxied_target(std::string_view target);

// upstream ("http://h:p" or "http://h:p/base", no trailing slash needed) + rest.
std::string upstream_url(std::string_view upstream, std::string_view rest);

// status_url with "{key}" replaced by the percent-encoded key.
std::string status_url_for(std::string_view status_url, std::string_view key);

// An application/problem+json answer of the gateway. It also carries Stripe's error shape
// (`error: {type, message}`) and `Stripe-Should-Retry`, so Stripe's client libraries used
// through the gateway see an error (not a resolved object) and retry only what may be retried.
net::HttpResponse gateway_problem(int status, std::string_view type, std::string_view detail);

}  // namespace hookd::proxy
