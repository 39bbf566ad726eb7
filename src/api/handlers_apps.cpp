// Applications and event types: the Svix routes /api/v1/app and /api/v1/event-type. Every
// change is audited in its own transaction (A30, see audit_entries.hpp).
#include "api/api_impl.hpp"
#include "api/audit_entries.hpp"
#include "api/json_body.hpp"
#include "wire/json.hpp"

namespace hookd::api {
namespace {

// Reads ApplicationIn fields into `app`; with `patch`, absent fields are left unchanged.
void read_application(Fields& f, store::Application& app, bool patch) {
  if (!patch || f.contains("name")) app.name = f.required_string("name", 256);
  if (!patch || f.contains("uid")) {
    app.uid = f.string("uid", 256);
    check_svix_name(f, "uid", app.uid);
    if (app.uid && app.uid->starts_with("app_")) {
      f.add_error("uid", "must not start with 'app_' (reserved for application ids)");
    }
  }
  read_throttle_rate(f, app.rate_limit, patch);
  if (!patch || f.contains("metadata")) app.metadata = f.object_text("metadata").value_or("{}");
}

void read_event_type(Fields& f, store::EventType& type, bool patch) {
  if (!patch || f.contains("description"))
    type.description = f.string("description", 4096).value_or("");
  if (!patch || f.contains("archived")) type.archived = f.boolean("archived").value_or(false);
  if (!patch || f.contains("schemas")) type.schemas = f.object_text("schemas").value_or("{}");
}

store::AuditEntry created_entry(const Call& call, const char* action, const char* type,
                                std::string target_id, const nlohmann::json& state) {
  return with_states(audit_entry(call, action, type, std::move(target_id)), nullptr, state);
}

}  // namespace

Reply Api::Impl::create_app(Call& call) {
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  store::Application app;
  read_application(f, app, false);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  const bool get_if_exists = call.request.query_param("get_if_exists") == "true";
  if (get_if_exists && app.uid) {
    if (auto existing = deps_.store.get_application(*app.uid)) {
      return json_response(200, wire::dump(wire::to_json(*existing)));
    }
  }
  auto created = deps_.store.create_application(
      app, created_entry(call, "application.create", "application", "", audit_state(app)));
  if (!created && created.error().code == ErrorCode::kConflict && get_if_exists && app.uid) {
    if (auto existing = deps_.store.get_application(*app.uid)) {  // lost a race: fine
      return json_response(200, wire::dump(wire::to_json(*existing)));
    }
  }
  if (!created) {
    if (created.error().code == ErrorCode::kConflict) {
      return std::unexpected(
          conflict("An application with uid '" + app.uid.value_or("") + "' already exists"));
    }
    return std::unexpected(from_store_error(created.error()));
  }
  return json_response(201, wire::dump(wire::to_json(*created)));
}

Reply Api::Impl::list_apps(Call& call) {
  auto page = page_of(call, false);
  if (!page) return std::unexpected(page.error());
  auto apps = deps_.store.list_applications(*page);
  if (!apps) return std::unexpected(from_store_error(apps.error()));
  return json_response(200, wire::page_json(*apps, *page));
}

Reply Api::Impl::get_app(Call& call) {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  return json_response(200, wire::dump(wire::to_json(*app)));
}

// Svix PUT is an upsert: an unknown id creates the application with that uid.
Reply Api::Impl::put_app(Call& call) {
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  store::Application app;
  read_application(f, app, false);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  auto existing = deps_.store.get_application(call.param("app_id"));
  if (!existing && existing.error().code == ErrorCode::kNotFound) {
    if (!app.uid && !call.param("app_id").starts_with("app_")) app.uid = call.param("app_id");
    auto created = deps_.store.create_application(
        app, created_entry(call, "application.create", "application", "", audit_state(app)));
    if (!created) return std::unexpected(from_store_error(created.error()));
    return json_response(201, wire::dump(wire::to_json(*created)));
  }
  if (!existing) return std::unexpected(from_store_error(existing.error()));
  app.id = existing->id;
  auto updated = deps_.store.update_application(
      app, update_entry(audit_entry(call, "application.update", "application", app.id),
                        audit_state(*existing), audit_state(app)));
  if (!updated) return std::unexpected(from_store_error(updated.error(), "application"));
  return json_response(200, wire::dump(wire::to_json(*updated)));
}

Reply Api::Impl::patch_app(Call& call) {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  const auto before = audit_state(*app);
  read_application(f, *app, true);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  auto updated = deps_.store.update_application(
      *app, update_entry(audit_entry(call, "application.update", "application", app->id), before,
                         audit_state(*app)));
  if (!updated) return std::unexpected(from_store_error(updated.error(), "application"));
  return json_response(200, wire::dump(wire::to_json(*updated)));
}

Reply Api::Impl::delete_app(Call& call) {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  auto audit = with_states(audit_entry(call, "application.delete", "application", app->id),
                           audit_state(*app), nullptr);
  if (auto done = deps_.store.delete_application(app->id, std::move(audit)); !done) {
    return std::unexpected(from_store_error(done.error(), "application"));
  }
  return empty_response(204);
}

Reply Api::Impl::create_event_type(Call& call) {
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  store::EventType type;
  type.name = f.required_string("name", 256);
  check_svix_name(f, "name", type.name.empty() ? std::nullopt : std::optional(type.name));
  read_event_type(f, type, false);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  auto created = deps_.store.create_event_type(
      type, created_entry(call, "event_type.create", "event_type", type.name, audit_state(type)));
  if (!created && created.error().code == ErrorCode::kConflict) {
    return std::unexpected(conflict("Event type '" + type.name + "' already exists"));
  }
  if (!created) return std::unexpected(from_store_error(created.error()));
  return json_response(201, wire::dump(wire::to_json(*created)));
}

Reply Api::Impl::list_event_types(Call& call) {
  auto page = page_of(call, false);
  if (!page) return std::unexpected(page.error());
  const bool archived = call.request.query_param("include_archived") == "true";
  auto types = deps_.store.list_event_types(*page, archived);
  if (!types) return std::unexpected(from_store_error(types.error()));
  return json_response(200, wire::page_json(*types, *page));
}

Reply Api::Impl::get_event_type(Call& call) {
  const auto& name = call.param("event_type_name");
  auto type = deps_.store.get_event_type(name);
  if (!type) return std::unexpected(from_store_error(type.error(), "event type '" + name + "'"));
  return json_response(200, wire::dump(wire::to_json(*type)));
}

Reply Api::Impl::put_event_type(Call& call) {
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  store::EventType type;
  type.name = call.param("event_type_name");
  read_event_type(f, type, false);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  auto existing = deps_.store.get_event_type(type.name);
  if (!existing && existing.error().code == ErrorCode::kNotFound) {
    auto created = deps_.store.create_event_type(
        type, created_entry(call, "event_type.create", "event_type", type.name, audit_state(type)));
    if (!created) return std::unexpected(from_store_error(created.error()));
    return json_response(201, wire::dump(wire::to_json(*created)));
  }
  if (!existing) return std::unexpected(from_store_error(existing.error()));
  auto updated = deps_.store.update_event_type(
      type, update_entry(audit_entry(call, "event_type.update", "event_type", type.name),
                         audit_state(*existing), audit_state(type)));
  if (!updated) return std::unexpected(from_store_error(updated.error(), "event type"));
  return json_response(200, wire::dump(wire::to_json(*updated)));
}

Reply Api::Impl::patch_event_type(Call& call) {
  const auto& name = call.param("event_type_name");
  auto type = deps_.store.get_event_type(name);
  if (!type) return std::unexpected(from_store_error(type.error(), "event type '" + name + "'"));
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  const auto before = audit_state(*type);
  read_event_type(f, *type, true);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  auto updated = deps_.store.update_event_type(
      *type, update_entry(audit_entry(call, "event_type.update", "event_type", name), before,
                          audit_state(*type)));
  if (!updated) return std::unexpected(from_store_error(updated.error(), "event type"));
  return json_response(200, wire::dump(wire::to_json(*updated)));
}

// Svix archives on DELETE unless ?expunge=true.
Reply Api::Impl::delete_event_type(Call& call) {
  const auto& name = call.param("event_type_name");
  auto type = deps_.store.get_event_type(name);
  if (!type) return std::unexpected(from_store_error(type.error(), "event type '" + name + "'"));
  if (call.request.query_param("expunge") == "true") {
    auto audit = with_states(audit_entry(call, "event_type.delete", "event_type", name),
                             audit_state(*type), nullptr);
    if (auto done = deps_.store.delete_event_type(name, std::move(audit)); !done) {
      return std::unexpected(from_store_error(done.error()));
    }
  } else {
    const auto before = audit_state(*type);
    type->archived = true;
    auto audit = update_entry(audit_entry(call, "event_type.update", "event_type", name), before,
                              audit_state(*type));
    if (auto done = deps_.store.update_event_type(*type, std::move(audit)); !done) {
      return std::unexpected(from_store_error(done.error()));
    }
  }
  return empty_response(204);
}

}  // namespace hookd::api
