#include "api/endpoint_input.hpp"

#include <algorithm>
#include <cctype>

#include "hookd/encoding.hpp"
#include "hookd/retry.hpp"
#include "hookd/signing.hpp"

namespace hookd::api {
namespace {

constexpr std::size_t kMaxUrlLength = 2048;

std::string lower(std::string_view s) {
  std::string out(s);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// whsec_<base64 of 24-64 bytes> (the prefix is optional on input, as with Svix), or
// whsk_<base64 Ed25519 seed> for Standard Webhooks v1a signatures (checked by building a
// signer, so a 64-byte seed+public key that do not match is refused too).
std::optional<std::string> normalise_secret(const std::string& secret) {
  if (secret.starts_with("whsk_")) {
    SchemeOptions ed25519;
    ed25519.kind = SchemeKind::kStandardEd25519;
    const std::vector<std::string> keys{secret};
    if (!Signer::create(ed25519, keys)) return std::nullopt;
    return secret;
  }
  std::string_view body = secret;
  if (body.starts_with("whsec_")) body.remove_prefix(6);
  auto bytes = base64_decode(body);
  if (!bytes || bytes->size() < 24 || bytes->size() > 64) return std::nullopt;
  return "whsec_" + std::string(body);
}

// "both" (absent or null), "webhook" or "svix".
std::string read_header_naming(Fields& f) {
  const auto name = f.string("headerNaming", 16);
  if (!name) return std::string(to_string(HeaderNaming::kBoth));
  if (!parse_header_naming(*name)) {
    f.add_error("headerNaming", R"(must be "both" (webhook-* and svix-*), "webhook" or "svix")");
  }
  return *name;
}

// RFC 9110 token characters (header field names).
bool is_token_char(unsigned char c) {
  return std::isalnum(c) != 0 ||
         std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

}  // namespace

std::optional<std::string> url_problem(const std::string& url, const AddressPolicy& policy) {
  if (url.size() > kMaxUrlLength) return "must be at most 2048 characters";
  if (std::ranges::any_of(url, [](unsigned char c) { return c <= 0x20 || c == 0x7f; })) {
    return "must not contain spaces or control characters";
  }
  const auto sep = url.find("://");
  if (sep == std::string::npos) return "must be an absolute http:// or https:// URL";
  const auto scheme = lower(std::string_view(url).substr(0, sep));
  if (scheme != "http" && scheme != "https") {
    return "scheme must be http or https, not '" + scheme + "'";
  }
  std::string_view authority = std::string_view(url).substr(sep + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (authority.find('@') != std::string_view::npos) {
    return "must not contain credentials (user:password@); use the endpoint's headers instead";
  }
  std::string_view host = authority;
  if (host.starts_with('[')) {
    const auto close = host.find(']');
    if (close == std::string_view::npos) return "has an unterminated IPv6 address";
    host = host.substr(0, close + 1);
  } else {
    host = host.substr(0, host.find(':'));
  }
  if (host.empty()) return "must name a host";
  if (auto ip = IpAddress::parse(host)) {
    const auto decision = policy.check(*ip);
    if (!decision.allowed) {
      return "points at a refused address: " + decision.reason +
             " (add the subnet to [ssrf] allowed_subnets to allow it)";
    }
  }
  return std::nullopt;
}

std::optional<std::string> header_problem(const std::string& name, const std::string& value) {
  if (name.empty() || name.size() > 256 ||
      !std::ranges::all_of(name, [](unsigned char c) { return is_token_char(c); })) {
    return "is not a valid header name";
  }
  const auto l = lower(name);
  if (l.starts_with("webhook-") || l.starts_with("svix-") || l == "host" || l == "content-length" ||
      l == "content-type" || l == "transfer-encoding" || l == "connection" || l == "user-agent") {
    return "is set by hookd and cannot be overridden";
  }
  if (value.size() > 4096 || std::ranges::any_of(value, [](unsigned char c) {
        return c == '\r' || c == '\n' || c == '\0';
      })) {
    return "value must be at most 4096 characters without CR, LF or NUL";
  }
  return std::nullopt;
}

void check_headers(Fields& f, const std::string& field, const store::Headers& headers) {
  constexpr std::size_t kMaxHeaders = 50;
  if (headers.size() > kMaxHeaders) f.add_error(field, "must have at most 50 headers");
  for (const auto& [name, value] : headers) {
    if (auto problem = header_problem(name, value)) f.add_error(field + "." + name, *problem);
  }
}

std::optional<std::string> read_retry_policy(Fields& f) {
  if (!f.present("retryPolicy")) return std::nullopt;
  auto text = f.object_text("retryPolicy");
  if (!text) return std::nullopt;
  const auto policy = nlohmann::json::parse(*text);
  Fields p(policy);
  nlohmann::json out = nlohmann::json::object();
  static const std::vector<std::string> kKnown = {
      "maxAttempts", "maxAgeMs",        "baseDelayMs",     "maxDelayMs",
      "scheduleMs",  "statusOverrides", "honourRetryAfter"};
  for (const auto& [key, value] : policy.items()) {
    if (std::ranges::find(kKnown, key) == kKnown.end()) {
      f.add_error("retryPolicy." + key,
                  "is not a known field (maxAttempts, maxAgeMs, baseDelayMs, maxDelayMs, "
                  "scheduleMs, statusOverrides, honourRetryAfter)");
    }
  }
  constexpr std::int64_t kWeekMs = 7LL * 24 * 3600 * 1000;
  if (auto v = p.integer("maxAttempts", 1, 100)) out["maxAttempts"] = *v;
  if (auto v = p.integer("maxAgeMs", 1000, kWeekMs)) out["maxAgeMs"] = *v;
  if (auto v = p.integer("baseDelayMs", 1, kWeekMs)) out["baseDelayMs"] = *v;
  if (auto v = p.integer("maxDelayMs", 1, kWeekMs)) out["maxDelayMs"] = *v;
  if (auto v = p.boolean("honourRetryAfter")) out["honourRetryAfter"] = *v;
  if (policy.contains("scheduleMs")) {
    const auto& s = policy["scheduleMs"];
    const bool ok = s.is_array() && s.size() <= 50 && std::ranges::all_of(s, [&](const auto& d) {
                      return d.is_number_integer() && d.template get<std::int64_t>() >= 0 &&
                             d.template get<std::int64_t>() <= kWeekMs;
                    });
    if (!ok) {
      f.add_error("retryPolicy.scheduleMs",
                  "must be an array of at most 50 delays in ms (0 to 1 week)");
    } else {
      out["scheduleMs"] = s;
    }
  }
  if (auto overrides = p.string_map("statusOverrides")) {
    StatusOverrides check;
    for (const auto& [selector, action] : *overrides) {
      if (auto added = check.add(selector, action); !added) {
        f.add_error("retryPolicy.statusOverrides." + selector, added.error().message);
      }
    }
    out["statusOverrides"] = *overrides;
  }
  for (const auto& e : p.errors()) f.add_error("retryPolicy." + e.field, e.message);
  return out.dump();
}

std::optional<std::string> read_endpoint(Fields& f, store::Endpoint& ep, EndpointBody kind,
                                         const AddressPolicy& policy) {
  const bool patch = kind == EndpointBody::kPatch;
  auto given = [&](std::string_view name) { return !patch || f.contains(name); };
  if (given("url")) {
    ep.url = f.required_string("url", kMaxUrlLength);
    if (!ep.url.empty()) {
      if (auto problem = url_problem(ep.url, policy)) f.add_error("url", *problem);
    }
  }
  if (given("description")) ep.description = f.string("description", 1024).value_or("");
  if (given("uid")) {
    ep.uid = f.string("uid", 256);
    check_svix_name(f, "uid", ep.uid);
    if (ep.uid && ep.uid->starts_with("ep_")) {
      f.add_error("uid", "must not start with 'ep_' (reserved for endpoint ids)");
    }
  }
  if (given("filterTypes")) {
    ep.filter_types = f.string_list("filterTypes", 1000, 256);
    if (ep.filter_types && ep.filter_types->empty()) ep.filter_types.reset();
  }
  if (given("channels")) {
    ep.channels = f.string_list("channels", 10, 128);
    if (ep.channels && ep.channels->empty()) ep.channels.reset();
  }
  read_throttle_rate(f, ep.rate_limit, patch);
  if (given("disabled")) ep.disabled = f.boolean("disabled").value_or(false);
  if (given("metadata")) ep.metadata = f.object_text("metadata").value_or("{}");
  if (given("headers")) {
    auto headers = f.string_map("headers").value_or(store::Headers{});
    check_headers(f, "headers", headers);
    ep.headers = std::move(headers);
  }
  if (given("fifo")) ep.fifo = f.boolean("fifo").value_or(false);
  if (given("retryPolicy")) ep.retry_policy = read_retry_policy(f);
  if (given("connectTimeoutMs")) ep.connect_timeout_ms = f.integer("connectTimeoutMs", 1, 60'000);
  if (given("timeoutMs")) ep.total_timeout_ms = f.integer("timeoutMs", 1, 300'000);
  if (given("headerNaming")) ep.header_naming = read_header_naming(f);
  if (kind != EndpointBody::kCreate) return std::nullopt;
  auto secret = f.string("secret", 256);
  if (!secret) return std::nullopt;
  auto normalised = normalise_secret(*secret);
  if (!normalised) {
    f.add_error("secret",
                "must be whsec_ followed by the base64 of 24 to 64 random bytes, or whsk_ "
                "followed by the base64 of a 32-byte Ed25519 seed");
  }
  return normalised;
}

}  // namespace hookd::api
