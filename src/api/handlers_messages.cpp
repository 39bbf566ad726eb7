// Messages: POST/GET /api/v1/app/{app_id}/msg (publish goes through group commit), get,
// resend (attempt lists are in handlers_attempts.cpp).
#include "api/api_impl.hpp"
#include "api/audit_entries.hpp"
#include "api/json_body.hpp"
#include "api/query_values.hpp"
#include "ops/log.hpp"
#include "wire/json.hpp"
#include "wire/time.hpp"

namespace hookd::api {
namespace {

// The answer to a publish outcome (also what its Idempotency-Key keeps).
net::HttpResponse publish_response(const store::PublishOutcome& outcome) {
  using Kind = store::PublishOutcome::Kind;
  switch (outcome.kind) {
    case Kind::kCreated:
      // The payload is the text of a member of the parsed body: valid JSON.
      return json_response(202, wire::message_json(outcome.message, true));
    case Kind::kDuplicate: {
      auto response =
          to_response(conflict("A message with eventId '" + outcome.message.event_id.value_or("") +
                               "' already exists in this application"));
      wire::append_member(response.body, "message", wire::message_json(outcome.message));
      return response;
    }
    case Kind::kRejected:
    case Kind::kKeySeen:  // not a publish: never rendered
      break;
  }
  return to_response(from_store_error(
      outcome.error.value_or(Error{ErrorCode::kInvalidArgument, "rejected"}), "application"));
}

const char* publish_counter_label(store::PublishOutcome::Kind kind) {
  using Kind = store::PublishOutcome::Kind;
  switch (kind) {
    case Kind::kCreated:
      return "created";
    case Kind::kDuplicate:
      return "duplicate";
    case Kind::kRejected:
    case Kind::kKeySeen:
      break;
  }
  return "rejected";
}

// The application an ApplicationIn (MessageIn.application) describes; its uid is the
// path's, and a different `uid` in it is refused.
std::expected<store::Application, ApiError> application_in(const nlohmann::json& in,
                                                           const std::string& path_uid) {
  if (!in.is_object()) {
    return std::unexpected(validation_error({{"application", "must be an object"}}));
  }
  Fields f(in);
  store::Application app;
  app.name = f.required_string("name", 256);
  app.uid = f.string("uid", 256).value_or(path_uid);
  if (*app.uid != path_uid) f.add_error("uid", "must be the application uid of the path");
  read_throttle_rate(f, app.rate_limit, false);
  app.metadata = f.object_text("metadata").value_or("{}");
  if (!f.ok()) {
    auto errors = f.errors();
    for (auto& e : errors) e.field = "application." + e.field;
    return std::unexpected(validation_error(std::move(errors)));
  }
  return app;
}

}  // namespace

// Svix MessageIn.application: get-or-create by uid. The path's application when it exists
// (then `application` is ignored, as Svix); else, given `application` and a path that is a
// uid (not an `app_` id), that application is created (audited) and the message goes to it.
std::expected<store::Application, ApiError> Api::Impl::app_for_message(
    const Call& call, const nlohmann::json& body) const {
  auto app = app_of(call);
  const auto& path = call.param("app_id");
  if (app || app.error().status != 404 || !body.contains("application") ||
      path.starts_with("app_")) {
    return app;
  }
  auto wanted = application_in(body["application"], path);
  if (!wanted) return std::unexpected(wanted.error());
  auto audit = with_states(audit_entry(call, "application.create", "application", ""), nullptr,
                           audit_state(*wanted));
  auto created = deps_.store.create_application(*wanted, std::move(audit));
  if (!created && created.error().code == ErrorCode::kConflict) return app_of(call);  // a race
  if (!created) return std::unexpected(from_store_error(created.error()));
  return *created;
}

// A keyed publish carries its Idempotency-Key into the batch (store::PublishKey): the key
// and its response commit with the message, one fsync shared with the batch instead of
// three of its own.
void Api::Impl::create_message(Call& call, Respond respond) {
  std::optional<store::PublishKey> key;
  if (auto header = call.request.headers.get("Idempotency-Key")) {
    if (auto invalid = check_idempotency_key(*header)) return respond(to_response(*invalid));
    key = idempotency_key_of(call, std::string(*header));
  }
  auto refuse = [&](const ApiError& error) {
    if (!key) return respond(to_response(error));
    run_keyed(call, *key, std::move(respond), [&](Respond finish) { finish(to_response(error)); });
  };
  auto body = body_of(call);
  if (!body) return refuse(body.error());
  auto app = app_for_message(call, *body);
  if (!app) return refuse(app.error());
  Fields f(*body);
  store::NewMessage msg;
  msg.app_id = app->id;
  msg.event_type = f.required_string("eventType", 256);
  msg.event_id = f.string("eventId", 256);
  if (msg.event_id && msg.event_id->empty()) f.add_error("eventId", "must not be empty");
  msg.channels = f.string_list("channels", 10, 128);
  if (msg.channels && msg.channels->empty()) msg.channels.reset();
  msg.tags = f.string_list("tags", 10, 128);
  if (msg.tags && msg.tags->empty()) msg.tags.reset();
  msg.ordering_key = f.string("orderingKey", 256);
  if (!f.present("payload")) {
    f.add_error("payload", "is required (a JSON object)");
  } else if (f.object("payload")) {
    // The caller's exact bytes (A38): key order, number forms, escapes, whitespace.
    msg.payload = std::string(member_text(call.request.body, "payload").value_or("{}"));
  }
  if (!f.ok()) {
    if (publishes_ != nullptr) publishes_->with({"rejected"}).inc();
    return refuse(validation_error(f.errors()));
  }
  if (key) {
    key->render = [](const store::PublishOutcome& o) { return to_stored(publish_response(o)); };
    msg.key = std::move(key);
  }
  submit_message(std::move(msg), call, std::move(respond));
}

void Api::Impl::submit_message(store::NewMessage msg, const Call& call, Respond respond) {
  auto count = [this](const char* outcome) {
    if (publishes_ != nullptr) publishes_->with({outcome}).inc();
  };
  auto shared = std::make_shared<Respond>(std::move(respond));
  auto done = [this, shared, count, actor = call.actor,
               path = std::string(call.request.path())](Result<store::PublishOutcome> outcome) {
    Respond& answer = *shared;
    if (!outcome) {
      count("failed");
      if (deps_.logger != nullptr) {
        deps_.logger->error("api.publish_failed", {{"error", outcome.error().message}});
      }
      return answer(to_response(from_store_error(outcome.error())));
    }
    if (outcome->kind == store::PublishOutcome::Kind::kKeySeen) {
      return answer(
          seen_key_response(outcome->key.value_or(store::IdempotencyBegin{}), actor, path));
    }
    count(publish_counter_label(outcome->kind));
    if (outcome->key) {
      count_idempotency("stored");
      return answer(stored_response(outcome->key->record));  // exactly what replays will send
    }
    answer(publish_response(*outcome));
  };
  if (!deps_.publish.submit(std::move(msg), std::move(done))) {
    count("failed");
    (*shared)(to_response(unavailable("The publish queue is full or shutting down; retry later")));
  }
}

Reply Api::Impl::list_messages(Call& call) {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  auto page = page_of(call, true);
  if (!page) return std::unexpected(page.error());
  store::MessageFilter filter;
  if (auto types = query_values(call.request, "event_types"); !types.empty()) {
    filter.event_types = std::move(types);
  }
  if (auto channel = call.request.query_param("channel")) filter.channel = *channel;
  if (auto tag = call.request.query_param("tag")) filter.tag = *tag;
  if (auto window = read_time_window(call.request, filter.since, filter.before); !window) {
    return std::unexpected(window.error());
  }
  auto msgs = deps_.store.list_messages(app->id, filter, *page);
  if (!msgs) return std::unexpected(from_store_error(msgs.error()));
  if (call.request.query_param("with_content") == "false") {
    for (auto& m : msgs->data) m.payload = "{}";  // Svix: the payloads left out
  }
  return json_response(200, wire::page_json(*msgs, *page));
}

Reply Api::Impl::get_message(Call& call) {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  auto msg = message_of(call, app->id);
  if (!msg) return std::unexpected(msg.error());
  return json_response(200, wire::message_json(*msg));
}

Reply Api::Impl::resend(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  auto msg = message_of(call, found->app.id);
  if (!msg) return std::unexpected(msg.error());
  if (store::payload_expunged(*msg)) {  // as Svix: an expunged payload cannot be sent again
    return std::unexpected(
        api_error(400, "missing_payload",
                  "Unable to resend message. Payload is missing (probably expired)."));
  }
  auto audit = audit_entry(call, "message.resend", "message", msg->id);  // A30; after: by the store
  auto delivery = deps_.store.resend(msg->id, found->endpoint.id, std::move(audit));
  if (!delivery) return std::unexpected(from_store_error(delivery.error()));
  // Svix answers `{}`: its SDK parses the body, and an empty one made it throw although the
  // resend had happened (so a caller retried and sent twice).
  return json_response(202, "{}");
}

}  // namespace hookd::api
