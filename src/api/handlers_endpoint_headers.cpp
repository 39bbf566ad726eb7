// Svix's endpoint headers routes: GET/PUT/PATCH
// /api/v1/app/{app_id}/endpoint/{endpoint_id}/headers. The custom headers are sent with every
// delivery to the endpoint. GET returns them as Svix's EndpointHeadersOut: credentials-like headers
// (Authorization, ...) are not echoed, only their names are listed in `sensitive`. PUT replaces the
// set; PATCH merges `headers` (a null value removes that header) and removes the names in
// `deleteHeaders`. A change is audited as `endpoint.update` with the header names only (A30).
#include <algorithm>
#include <array>
#include <cctype>

#include <nlohmann/json.hpp>

#include "api/api_impl.hpp"
#include "api/audit_entries.hpp"
#include "api/endpoint_input.hpp"
#include "api/json_body.hpp"
#include "wire/json.hpp"

namespace hookd::api {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  return std::ranges::equal(
      a, b, [](unsigned char x, unsigned char y) { return std::tolower(x) == std::tolower(y); });
}

// The headers Svix redacts in EndpointHeadersOut.
bool sensitive(std::string_view name) {
  static constexpr std::array<std::string_view, 5> kSensitive = {
      "authorization", "proxy-authorization", "x-auth-token", "www-authenticate",
      "proxy-authenticate"};
  return std::ranges::any_of(kSensitive, [&](std::string_view s) { return same_name(s, name); });
}

// Header names are case-insensitive: setting "X-Tenant" replaces a stored "x-tenant".
void erase_name(store::Headers& headers, std::string_view name) {
  std::erase_if(headers, [&](const auto& entry) { return same_name(entry.first, name); });
}

nlohmann::json headers_out(const store::Headers& headers) {
  nlohmann::json out = {{"headers", nlohmann::json::object()},
                        {"sensitive", nlohmann::json::array()}};
  for (const auto& [name, value] : headers) {
    if (sensitive(name)) {
      out["sensitive"].push_back(name);
    } else {
      out["headers"][name] = value;
    }
  }
  return out;
}

// PATCH's `headers`: an object of string or null values.
std::map<std::string, std::optional<std::string>> patch_map(Fields& f, const nlohmann::json& body) {
  std::map<std::string, std::optional<std::string>> out;
  if (!body.contains("headers") || body["headers"].is_null()) return out;
  if (!body["headers"].is_object()) {
    f.add_error("headers", "must be an object of header names to strings (or null to remove)");
    return out;
  }
  for (const auto& [name, value] : body["headers"].items()) {
    if (value.is_null()) {
      out[name] = std::nullopt;
    } else if (value.is_string()) {
      out[name] = value.get<std::string>();
    } else {
      f.add_error("headers." + name, "must be a string, or null to remove the header");
    }
  }
  return out;
}

}  // namespace

Reply Api::Impl::get_endpoint_headers(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  return json_response(200, wire::dump(headers_out(found->endpoint.headers)));
}

Reply Api::Impl::put_endpoint_headers(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  if (!f.present("headers")) f.add_error("headers", "is required (an object of strings)");
  auto given = f.string_map("headers").value_or(store::Headers{});
  store::Headers headers;
  for (auto& [name, value] : given) {
    erase_name(headers, name);
    headers[name] = std::move(value);
  }
  check_headers(f, "headers", headers);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  store::Endpoint ep = found->endpoint;
  ep.headers = std::move(headers);
  auto updated = deps_.store.update_endpoint(ep, endpoint_update_entry(call, found->endpoint, ep));
  if (!updated) return std::unexpected(from_store_error(updated.error(), "endpoint"));
  return empty_response(204);
}

Reply Api::Impl::patch_endpoint_headers(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  if (!f.present("headers") && !f.present("deleteHeaders")) {
    f.add_error("headers", "is required (an object of strings, or null to remove a header)");
  }
  const auto changes = patch_map(f, *body);
  const auto removals =
      f.string_list("deleteHeaders", 50, 256).value_or(std::vector<std::string>{});
  store::Endpoint ep = found->endpoint;
  for (const auto& name : removals) erase_name(ep.headers, name);
  for (const auto& [name, value] : changes) {
    erase_name(ep.headers, name);
    if (value) ep.headers[name] = *value;
  }
  check_headers(f, "headers", ep.headers);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  auto updated = deps_.store.update_endpoint(ep, endpoint_update_entry(call, found->endpoint, ep));
  if (!updated) return std::unexpected(from_store_error(updated.error(), "endpoint"));
  return empty_response(204);
}

}  // namespace hookd::api
