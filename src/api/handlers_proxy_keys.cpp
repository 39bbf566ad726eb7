// The idempotency gateway's keys under /api/v1/hookd/idempotency: list them (filters: proxy,
// state; newest first like the other lists), show one, and let a person resolve an unknown
// one (`POST .../{id}/resolve {"outcome": "completed"|"not_executed", "reason", "response"?}`),
// audited with the row before and after. The keys are otherwise written by the gateway.
#include "api/api_impl.hpp"
#include "api/json_body.hpp"
#include "store/proxy_resolution.hpp"
#include "wire/time.hpp"

namespace hookd::api {
namespace {

nlohmann::json optional_time(store::Millis ms) {
  return ms > 0 ? nlohmann::json(wire::format_time(ms)) : nlohmann::json(nullptr);
}

nlohmann::json proxy_key_json(const store::ProxyKey& k) {
  nlohmann::json headers = nlohmann::json::array();
  for (const auto& [name, value] : k.headers) headers.push_back({name, value});
  return {{"id", k.id},
          {"proxy", k.proxy},
          {"key", k.key},
          {"tenant", k.tenant},
          {"state", std::string(to_string(k.state))},
          {"owner", k.owner},
          {"leaseUntil", k.state == store::ProxyKeyState::kClaimed ? optional_time(k.lease_until)
                                                                   : nlohmann::json(nullptr)},
          {"response", k.status ? nlohmann::json{{"status", *k.status},
                                                 {"headers", std::move(headers)},
                                                 {"bodySize", k.body_size},
                                                 {"bodySha256", k.body_sha256}}
                                : nlohmann::json(nullptr)},
          {"createdAt", wire::format_time(k.created_at)},
          {"updatedAt", wire::format_time(k.updated_at)},
          {"expiresAt", optional_time(k.expires_at)},
          {"resolvedBy",
           k.resolved_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.resolved_by)},
          {"reason", k.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(k.reason)}};
}

std::expected<store::ProxyResolution, ApiError> proxy_resolution_of(const nlohmann::json& body) {
  Fields f(body);
  store::ProxyResolution r;
  r.reason = f.required_text("reason", 1024);
  const auto outcome = f.required_string("outcome", 32);
  if (!outcome.empty() && outcome != "completed" && outcome != "not_executed") {
    f.add_error("outcome", "must be \"completed\" or \"not_executed\"");
  }
  r.outcome = outcome == "not_executed" ? store::ProxyResolution::Outcome::kNotExecuted
                                        : store::ProxyResolution::Outcome::kCompleted;
  if (f.present("response")) {
    if (r.outcome == store::ProxyResolution::Outcome::kNotExecuted) {
      f.add_error("response", "only a completed outcome has a response");
    } else if (!body["response"].is_object()) {
      f.add_error("response", "must be an object {status, headers?, body?}");
    } else {
      Fields response(body["response"]);
      r.status = response.integer("status", 100, 599).value_or(0);
      if (r.status == 0) f.add_error("response.status", "required: an HTTP status 100-599");
      for (auto& [name, value] : response.string_map("headers").value_or(store::Headers{})) {
        r.headers.emplace_back(name, value);
      }
      r.body = response.string("body", 1024 * 1024).value_or("");
      for (const auto& e : response.errors()) f.add_error("response." + e.field, e.message);
    }
  }
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  return r;
}

}  // namespace

Reply Api::Impl::list_proxy_keys(Call& call) {
  auto page = page_of(call, true);
  if (!page) return std::unexpected(page.error());
  store::ProxyKeyFilter filter;
  if (auto v = call.request.query_param("proxy"); v && !v->empty()) filter.proxy = *v;
  if (auto v = call.request.query_param("state"); v && !v->empty()) {
    filter.state = store::parse_proxy_key_state(*v);
    if (!filter.state) {
      return std::unexpected(query_validation_error(
          {{"state", "must be one of claimed, completed, not_replayable, unknown"}}));
    }
  }
  auto keys = deps_.store.proxy_list(filter, *page);
  if (!keys) return std::unexpected(from_store_error(keys.error()));
  nlohmann::json data = nlohmann::json::array();
  for (const auto& k : keys->data) data.push_back(proxy_key_json(k));
  nlohmann::json out = {{"data", std::move(data)}, {"done", keys->done}};
  out["iterator"] = keys->iterator ? nlohmann::json(*keys->iterator) : nlohmann::json(nullptr);
  out["prevIterator"] = page->iterator ? nlohmann::json(*page->iterator) : nlohmann::json(nullptr);
  return json_response(200, out.dump());
}

Reply Api::Impl::get_proxy_key(Call& call) {
  const auto& id = call.param("key_id");
  auto key = deps_.store.proxy_get(id);
  if (!key) return std::unexpected(from_store_error(key.error(), "idempotency key '" + id + "'"));
  return json_response(200, proxy_key_json(*key).dump());
}

// Only an unknown key can be resolved (409 otherwise): "completed" makes it replayable (with
// the given response, or a note saying who resolved it), "not_executed" releases it so the
// client's next retry is sent.
Reply Api::Impl::resolve_proxy_key(Call& call) {
  const auto& id = call.param("key_id");
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  auto resolution = proxy_resolution_of(*body);
  if (!resolution) return std::unexpected(resolution.error());
  auto current = deps_.store.proxy_get(id);
  if (!current) {
    return std::unexpected(from_store_error(current.error(), "idempotency key '" + id + "'"));
  }
  resolution->resolved_by = call.actor;
  const auto ttl = deps_.options.proxy_key_ttls.find(current->proxy);
  resolution->ttl_ms =
      (ttl != deps_.options.proxy_key_ttls.end() ? ttl->second : deps_.options.idempotency_ttl)
          .count();
  store::fill_default_response(*resolution, *current);
  auto resolved = deps_.store.proxy_resolve(
      id, *resolution, store::proxy_resolution_audit(id, call.actor, resolution->reason));
  if (!resolved) {
    return std::unexpected(from_store_error(resolved.error(), "idempotency key '" + id + "'"));
  }
  nlohmann::json out = proxy_key_json(*resolved);
  if (resolution->outcome == store::ProxyResolution::Outcome::kNotExecuted) {
    out["state"] = "released";
  }
  return json_response(200, out.dump());
}

}  // namespace hookd::api
