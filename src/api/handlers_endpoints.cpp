// Endpoints: Svix routes under /api/v1/app/{app_id}/endpoint (CRUD, secret, rotate,
// recover) and hookd's enable/disable. Every change is audited in its own transaction (A30,
// see audit_entries.hpp).
#include <nlohmann/json.hpp>

#include "api/api_impl.hpp"
#include "api/audit_entries.hpp"
#include "api/endpoint_input.hpp"
#include "api/json_body.hpp"
#include "core/alert_types.hpp"
#include "hookd/ids.hpp"
#include "ops/alerts.hpp"
#include "wire/json.hpp"
#include "wire/time.hpp"

namespace hookd::api {
namespace {

// before/after are filled in by the store: the row's state as the transition found it.
store::AuditEntry endpoint_audit(std::string actor, bool disabled, std::string target_id,
                                 std::string reason) {
  store::AuditEntry audit;
  audit.actor = std::move(actor);
  audit.action = disabled ? "endpoint.disable" : "endpoint.enable";
  audit.target_type = "endpoint";
  audit.target_id = std::move(target_id);
  audit.reason = std::move(reason);
  return audit;
}

// The kind of signing key, never the key: "whsk" (Ed25519) or "whsec" (HMAC).
std::string key_kind(const std::string& secret) {
  return secret.starts_with("whsk_") ? "whsk" : "whsec";
}

}  // namespace

Reply Api::Impl::create_endpoint(Call& call) {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  store::Endpoint ep;
  auto secret = read_endpoint(f, ep, EndpointBody::kCreate, deps_.options.address_policy);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  return insert_endpoint(call, *app, std::move(ep), std::move(secret));
}

Reply Api::Impl::insert_endpoint(Call& call, const store::Application& app, store::Endpoint ep,
                                 std::optional<std::string> secret) {
  ep.app_id = app.id;
  ep.secrets.current = secret.value_or(new_secret());
  auto audit =
      with_states(audit_entry(call, "endpoint.create", "endpoint", ""), nullptr, audit_state(ep));
  auto created = deps_.store.create_endpoint(ep, std::move(audit));
  if (!created && created.error().code == ErrorCode::kConflict) {
    return std::unexpected(conflict("An endpoint with uid '" + ep.uid.value_or("") +
                                    "' already exists in this application"));
  }
  if (!created) return std::unexpected(from_store_error(created.error()));
  return json_response(201, wire::dump(wire::to_json(*created)));
}

Reply Api::Impl::list_endpoints(Call& call) {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  auto page = page_of(call, false);
  if (!page) return std::unexpected(page.error());
  auto eps = deps_.store.list_endpoints(app->id, *page);
  if (!eps) return std::unexpected(from_store_error(eps.error()));
  return json_response(200, wire::page_json(*eps, *page));
}

Reply Api::Impl::get_endpoint(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  const auto& [app, ep] = *found;
  return json_response(200, wire::dump(wire::to_json(ep)));
}

// PUT replaces every field; PATCH only the given ones. A change of `disabled` goes through
// set_endpoint_disabled so it is audited like the hookd enable/disable routes (A30).
// PUT of an unknown uid is Svix's upsert: it creates the endpoint with that uid (201); an
// unknown `ep_` id stays a 404, as an id cannot be chosen by the caller.
Reply Api::Impl::put_endpoint(Call& call) {
  const bool patch = call.request.method == "PATCH";
  auto app_found = app_of(call);
  if (!app_found) return std::unexpected(app_found.error());
  const auto& app = *app_found;
  auto found = endpoint_of(call, app);
  if (!found && found.error().status == 404 && !patch &&
      !call.param("endpoint_id").starts_with("ep_")) {
    return upsert_endpoint(call, app);
  }
  if (!found) return std::unexpected(found.error());
  const auto& existing = *found;
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  store::Endpoint ep = existing;
  if (!patch) {  // PUT: fields not given return to their defaults
    store::Endpoint fresh;
    fresh.id = ep.id;
    fresh.app_id = ep.app_id;
    fresh.secrets = ep.secrets;
    fresh.created_at = ep.created_at;
    fresh.disabled_reason = ep.disabled_reason;
    ep = std::move(fresh);
  }
  read_endpoint(f, ep, patch ? EndpointBody::kPatch : EndpointBody::kUpdate,
                deps_.options.address_policy);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  const bool want_disabled = ep.disabled;
  ep.disabled = existing.disabled;
  auto updated = deps_.store.update_endpoint(ep, endpoint_update_entry(call, existing, ep));
  if (!updated && updated.error().code == ErrorCode::kConflict) {
    return std::unexpected(conflict("An endpoint with uid '" + ep.uid.value_or("") +
                                    "' already exists in this application"));
  }
  if (!updated) return std::unexpected(from_store_error(updated.error(), "endpoint"));
  if (want_disabled != existing.disabled) {
    auto reason = audit_reason(call);
    auto audit =
        endpoint_audit(call.actor, want_disabled, ep.id,
                       reason.empty() ? "endpoint update via " + call.request.method : reason);
    auto changed =
        deps_.store.set_endpoint_disabled(app.id, ep.id, want_disabled, std::nullopt, audit);
    if (!changed) return std::unexpected(from_store_error(changed.error(), "endpoint"));
    updated = std::move(changed->endpoint);
  }
  return json_response(200, wire::dump(wire::to_json(*updated)));
}

Reply Api::Impl::upsert_endpoint(Call& call, const store::Application& app) {
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  store::Endpoint ep;
  read_endpoint(f, ep, EndpointBody::kUpdate, deps_.options.address_policy);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  if (!ep.uid) ep.uid = call.param("endpoint_id");
  return insert_endpoint(call, app, std::move(ep), std::nullopt);
}

Reply Api::Impl::patch_endpoint(Call& call) { return put_endpoint(call); }

Reply Api::Impl::delete_endpoint(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  const auto& [app, ep] = *found;
  auto audit = with_states(audit_entry(call, "endpoint.delete", "endpoint", ep.id), audit_state(ep),
                           nullptr);
  if (auto done = deps_.store.delete_endpoint(app.id, ep.id, std::move(audit)); !done) {
    return std::unexpected(from_store_error(done.error(), "endpoint"));
  }
  return empty_response(204);
}

Reply Api::Impl::get_endpoint_secret(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  const auto& [app, ep] = *found;
  return json_response(200, wire::dump({{"key", ep.secrets.current}}));
}

Reply Api::Impl::rotate_endpoint_secret(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  const auto& [app, ep] = *found;
  // Without a key, a whsk_ (Ed25519) endpoint rotates to a fresh whsk_ key, a whsec_ one to
  // a whsec_ key. A given key may be of the other kind: during the grace period the
  // dispatcher signs with both (v1 and v1a signatures in one header).
  const bool ed25519 = ep.secrets.current.starts_with("whsk_");
  std::string secret = ed25519 ? new_ed25519_secret() : new_secret();
  if (!call.request.body.empty()) {
    auto body = body_of(call);
    if (!body) return std::unexpected(body.error());
    Fields f(*body);
    store::Endpoint scratch;
    nlohmann::json as_create = {{"secret", (*body)["key"]}};
    if (f.present("key")) {
      Fields g(as_create);
      auto given = read_endpoint(g, scratch, EndpointBody::kCreate, deps_.options.address_policy);
      for (const auto& e : g.errors()) {
        if (e.field == "secret") f.add_error("key", e.message);
      }
      if (given) secret = *given;
    }
    if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  }
  const auto grace = deps_.options.secret_rotation_grace.count();
  nlohmann::json before = {{"keyType", key_kind(ep.secrets.current)}};
  before["previousKeyValidUntil"] =
      ep.secrets.previous && ep.secrets.previous_expires_at
          ? nlohmann::json(wire::format_time(*ep.secrets.previous_expires_at))
          : nlohmann::json(nullptr);
  const nlohmann::json after = {{"keyType", key_kind(secret)}, {"previousKeyValidForMs", grace}};
  auto audit = with_states(audit_entry(call, "endpoint.rotate_secret", "endpoint", ep.id), before,
                           after);  // the kinds of key and the grace period: never a key
  auto rotated = deps_.store.rotate_endpoint_secret(app.id, ep.id, secret, grace, std::move(audit));
  if (!rotated) return std::unexpected(from_store_error(rotated.error(), "endpoint"));
  return empty_response(204);
}

Reply Api::Impl::recover_endpoint(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  const auto& [app, ep] = *found;
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  if (!f.present("since")) f.add_error("since", "is required (an ISO-8601 time)");
  auto since = f.time("since");
  auto until = f.time("until");  // optional: only failures before it are re-sent
  if (since && until && *until <= *since) f.add_error("until", "must be later than since");
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  nlohmann::json before = {{"status", "dead"}, {"since", wire::format_time(*since)}};
  before["until"] = until ? nlohmann::json(wire::format_time(*until)) : nlohmann::json(nullptr);
  auto audit =  // after: {status: pending, recovered: n}, by the store
      with_states(audit_entry(call, "endpoint.recover", "endpoint", ep.id), before, nullptr);
  auto count = deps_.store.recover(ep.id, *since, until, std::move(audit));
  if (!count) return std::unexpected(from_store_error(count.error(), "endpoint"));
  const auto now = deps_.clock.now_ms();
  IdRandomBytes random{};
  deps_.random.fill(random);
  nlohmann::json out = {{"id", make_id("qtask", now, random)},
                        {"status", "finished"},
                        {"task", "endpoint.recover"},
                        {"updatedAt", wire::format_time(now)},
                        {"recovered", *count}};
  return json_response(202, wire::dump(out));
}

Reply Api::Impl::set_endpoint_enabled(Call& call, bool disabled) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  const auto& [app, ep] = *found;
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  const auto reason = f.required_text("reason", 1024);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  // Already in that state: nothing changes, no entry; the answer is the endpoint as it is.
  auto audit = endpoint_audit(call.actor, disabled, ep.id, reason);
  auto changed = deps_.store.set_endpoint_disabled(
      app.id, ep.id, disabled, disabled ? std::optional(reason) : std::nullopt, audit);
  if (!changed) return std::unexpected(from_store_error(changed.error(), "endpoint"));
  if (disabled && changed->changed) {
    ops::raise_alert(deps_.alerts, alert_types::kEndpointDisabled,
                     {{"appId", app.id},
                      {"endpointId", ep.id},
                      {"trigger", "manual"},
                      {"actor", call.actor},
                      {"reason", reason}});
  }
  return json_response(200, wire::dump(wire::to_json(changed->endpoint)));
}

}  // namespace hookd::api
