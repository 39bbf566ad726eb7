#include "proxy/key_rules.hpp"

#include <array>

#include "core/crypto.hpp"
#include "net/body_spool.hpp"

namespace hookd::proxy {
namespace {

bool visible_ascii(std::string_view text) {
  for (const char c : text) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// A Structured-Field string: "..." with \" and \\ the only escapes (RFC 8941 3.3.3).
Result<std::string> unquote(std::string_view quoted) {
  std::string out;
  for (std::size_t i = 1; i + 1 < quoted.size(); ++i) {
    char c = quoted[i];
    if (c == '\\') {
      if (i + 2 >= quoted.size()) return fail(ErrorCode::kInvalidArgument, "dangling escape");
      c = quoted[++i];
      if (c != '"' && c != '\\') return fail(ErrorCode::kInvalidArgument, "bad escape");
    } else if (c == '"') {
      return fail(ErrorCode::kInvalidArgument, "unescaped quote inside the key");
    }
    out.push_back(c);
  }
  return out;
}

constexpr std::array<std::string_view, 10> kHopByHop = {"connection",
                                                        "keep-alive",
                                                        "proxy-connection",
                                                        "proxy-authenticate",
                                                        "proxy-authorization",
                                                        "te",
                                                        "trailer",
                                                        "transfer-encoding",
                                                        "upgrade",
                                                        "host"};

bool names_in_connection(std::string_view name, std::string_view connection) {
  std::size_t start = 0;
  while (start <= connection.size()) {
    std::size_t comma = connection.find(',', start);
    if (comma == std::string_view::npos) comma = connection.size();
    std::string_view token = connection.substr(start, comma - start);
    while (!token.empty() && (token.front() == ' ' || token.front() == '\t'))
      token.remove_prefix(1);
    while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
    if (net::iequals(token, name)) return true;
    start = comma + 1;
  }
  return false;
}

bool always_hop_by_hop(std::string_view name) {
  if (net::iequals(name, "content-length")) return true;
  for (const auto h : kHopByHop) {
    if (net::iequals(name, h)) return true;
  }
  return false;
}

}  // namespace

Result<std::string> parse_idempotency_key(std::string_view value) {
  std::string key;
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    HOOKD_TRY(unquoted, unquote(value));
    key = std::move(unquoted);
  } else {
    key = std::string(value);
  }
  if (key.empty()) return fail(ErrorCode::kInvalidArgument, "the Idempotency-Key is empty");
  if (key.size() > kMaxKeyLength) {
    return fail(ErrorCode::kInvalidArgument, "the Idempotency-Key is longer than 255 characters");
  }
  if (!visible_ascii(key)) {
    return fail(ErrorCode::kInvalidArgument,
                "the Idempotency-Key must be printable ASCII characters only");
  }
  return key;
}

// Each part is length-prefixed, so no bytes can move between method and target unnoticed.
std::string request_fingerprint(std::string_view method, std::string_view target,
                                std::string_view body_sha256_hex) {
  std::string material;
  material.reserve(method.size() + target.size() + 90);
  for (const std::string_view part : {method, target}) {
    material.append(std::to_string(part.size()));
    material.push_back(':');
    material.append(part);
  }
  material.append(body_sha256_hex);
  return crypto::sha256_hex(material);
}

std::string body_sha256(const net::HttpRequest& request) {
  return request.spooled ? request.spooled->sha256_hex() : crypto::sha256_hex(request.body);
}

std::string tenant_of(const net::HttpHeaders& headers, std::string_view tenant_header) {
  if (tenant_header.empty()) return {};
  return crypto::sha256_hex(headers.get(tenant_header).value_or(std::string_view{}));
}

Verdict verdict_for(const store::ProxyKey& key, std::string_view fingerprint) {
  if (key.fingerprint != fingerprint) return Verdict::kMismatch;
  switch (key.state) {
    case store::ProxyKeyState::kCompleted:
      return Verdict::kReplay;
    case store::ProxyKeyState::kClaimed:
      return Verdict::kInProgress;
    case store::ProxyKeyState::kNotReplayable:
      return Verdict::kNotReplayable;
    case store::ProxyKeyState::kUnknown:
      return Verdict::kUnknown;
  }
  return Verdict::kUnknown;
}

bool is_hop_by_hop(std::string_view name, const net::HttpHeaders& headers) {
  if (always_hop_by_hop(name)) return true;
  for (const auto connection : headers.get_all("Connection")) {
    if (names_in_connection(name, connection)) return true;
  }
  return false;
}

bool is_hop_by_hop(std::string_view name, const store::HeaderPairs& headers) {
  if (always_hop_by_hop(name)) return true;
  for (const auto& [n, v] : headers) {
    if (net::iequals(n, "Connection") && names_in_connection(name, v)) return true;
  }
  return false;
}

store::HeaderPairs end_to_end_headers(const store::HeaderPairs& headers) {
  store::HeaderPairs out;
  for (const auto& [name, value] : headers) {
    if (!is_hop_by_hop(name, headers)) out.emplace_back(name, value);
  }
  return out;
}

std::optional<ProxiedTarget> split_proxied_target(std::string_view target) {
  if (!target.starts_with(kProxyPrefix)) return std::nullopt;
  target.remove_prefix(kProxyPrefix.size());
  const std::size_t end = target.find_first_of("/?");
  ProxiedTarget out;
  out.name = std::string(target.substr(0, end));
  if (out.name.empty()) return std::nullopt;
  out.rest.reserve(target.size() - out.name.size() + 1);
  if (end == std::string_view::npos || target[end] == '?') out.rest.push_back('/');
  if (end != std::string_view::npos) out.rest.append(target.substr(end));
  return out;
}

std::string upstream_url(std::string_view upstream, std::string_view rest) {
  while (upstream.ends_with('/')) upstream.remove_suffix(1);
  return std::string(upstream) + std::string(rest);
}

std::string status_url_for(std::string_view status_url, std::string_view key) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  for (const unsigned char c : key) {
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      encoded.push_back(static_cast<char>(c));
    } else {
      encoded.push_back('%');
      encoded.push_back(kHex[c >> 4]);
      encoded.push_back(kHex[c & 15]);
    }
  }
  constexpr std::string_view kPlaceholder = "{key}";
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = status_url.find(kPlaceholder); at != std::string_view::npos;
       at = status_url.find(kPlaceholder, from)) {
    out.append(status_url.substr(from, at - from)).append(encoded);
    from = at + kPlaceholder.size();
  }
  out.append(status_url.substr(from));
  return out;
}

namespace {

// The `error` member Stripe's clients read (stripe-node decides success by its presence, not
// by the status: without it a final 409 would resolve as if it were the created object).
std::string_view stripe_error_type(std::string_view type) {
  if (type == problem::kMismatch || type == problem::kInProgress || type == problem::kUnknown ||
      type == problem::kNotReplayable) {
    return "idempotency_error";
  }
  if (type == problem::kKeyMissing || type == problem::kKeyInvalid || type == problem::kNoProxy) {
    return "invalid_request_error";
  }
  return "api_error";
}

}  // namespace

net::HttpResponse gateway_problem(int status, std::string_view type, std::string_view detail) {
  net::HttpResponse response = net::problem_response(status, detail, type);
  // problem_response's body is one JSON object: add {"error": {"type", "message"}} inside it.
  response.body.pop_back();
  response.body += ",\"error\":{\"type\":\"";
  response.body += stripe_error_type(type);
  response.body += "\",\"message\":\"";
  response.body += net::json_escape(detail);
  response.body += "\"}}";
  // Stripe's retry hint, which its clients obey: retry while in progress or when nothing was
  // sent; never for an outcome that may have happened or a request that cannot succeed.
  const bool retry = type == problem::kInProgress || type == problem::kUnreachable ||
                     type == problem::kUnavailable;
  response.headers.set("Stripe-Should-Retry", retry ? "true" : "false");
  return response;
}

}  // namespace hookd::proxy
