// What was attempted and expunging content (Svix-compatible): listAttemptedMessages (an
// endpoint's messages with their latest delivery's status), listAttemptedDestinations (a
// message's endpoints), expunge-content of a message's payload and of an attempt's response
// body (audited), send-example (a message built from the event type's schema example, for one
// endpoint), and the transformation routes, answered as Svix's server answers routes it does
// not implement (501 not_implemented): transformations are out of scope.
#include "api/api_impl.hpp"
#include "api/audit_entries.hpp"
#include "api/json_body.hpp"
#include "api/query_values.hpp"
#include "wire/attempted_json.hpp"
#include "wire/json.hpp"

namespace hookd::api {
namespace {

using store::DeliveryStatus;

// Svix MessageStatus -> the delivery statuses it stands for (4 canceled: none).
std::vector<DeliveryStatus> delivery_statuses(int svix_status) {
  switch (svix_status) {
    case 0:
      return {DeliveryStatus::kDelivered};
    case 1:
      return {DeliveryStatus::kPending};
    case 2:
      return {DeliveryStatus::kDead, DeliveryStatus::kDiscarded};
    case 3:
      return {DeliveryStatus::kDelivering};
    default:
      return {};
  }
}

std::expected<store::EndpointMessageFilter, ApiError> endpoint_message_filter_of(
    const net::HttpRequest& request) {
  store::EndpointMessageFilter filter;
  auto status = int_param(request, "status", {0, 1, 2, 3, 4});
  if (!status) return std::unexpected(status.error());
  if (*status) filter.statuses = delivery_statuses(**status);
  if (auto read = read_message_selectors(request, filter); !read) {
    return std::unexpected(read.error());
  }
  return filter;
}

// Svix's send-example payload for its built-in ping event type (no event type needed).
constexpr std::string_view kPingEventType = "svix.ping";
constexpr std::string_view kPingPayload = R"({"success": true})";

ApiError no_example() {
  return api_error(400, "invalid_scheme",
                   "Unable to generate example message from event-type schema");
}

// The example `index` of the event type's version-1 schema (`schemas["1"].examples`), as
// Svix picks it; it must be a JSON object (a message payload).
std::expected<std::string, ApiError> schema_example(const store::EventType& type,
                                                    std::size_t index) {
  auto schemas = nlohmann::json::parse(type.schemas, nullptr, false);
  if (!schemas.is_object() || !schemas.contains("1") || !schemas["1"].is_object()) {
    return std::unexpected(no_example());
  }
  const auto& examples = schemas["1"].value("examples", nlohmann::json());
  if (!examples.is_array() || index >= examples.size() || !examples[index].is_object()) {
    return std::unexpected(no_example());
  }
  return wire::dump(examples[index]);
}

}  // namespace

Reply Api::Impl::list_attempted_messages(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  auto filter = endpoint_message_filter_of(call.request);
  if (!filter) return std::unexpected(filter.error());
  auto page = page_of(call, true);
  if (!page) return std::unexpected(page.error());
  auto rows = deps_.store.list_endpoint_messages(found->endpoint.id, *filter, *page);
  if (!rows) return std::unexpected(from_store_error(rows.error()));
  if (call.request.query_param("with_content") == "false") {
    for (auto& row : rows->data) row.message.payload = "{}";  // Svix: the payloads left out
  }
  return json_response(200, wire::endpoint_message_page_json(*rows, *page));
}

Reply Api::Impl::list_attempted_destinations(Call& call) {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  auto msg = message_of(call, app->id);
  if (!msg) return std::unexpected(msg.error());
  auto page = page_of(call, true);
  if (!page) return std::unexpected(page.error());
  auto rows = deps_.store.list_message_destinations(msg->id, *page);
  if (!rows) return std::unexpected(from_store_error(rows.error()));
  return json_response(200, wire::destination_page_json(*rows, *page));
}

Reply Api::Impl::expunge_message_content(Call& call) {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  const auto& id = call.param("msg_id");
  auto audit = audit_entry(call, "message.expunge_content", "message", "");  // after: the store
  auto done = deps_.store.expunge_message_content(app->id, id, std::move(audit));
  if (!done) return std::unexpected(from_store_error(done.error(), "message '" + id + "'"));
  return empty_response(204);
}

Reply Api::Impl::expunge_attempt_content(Call& call) {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  auto msg = message_of(call, app->id);
  if (!msg) return std::unexpected(msg.error());
  const auto& attempt_id = call.param("attempt_id");
  auto audit = audit_entry(call, "attempt.expunge_content", "attempt", attempt_id);
  auto done = deps_.store.expunge_attempt_content(msg->id, attempt_id, std::move(audit));
  if (!done) {
    return std::unexpected(from_store_error(done.error(), "attempt '" + attempt_id + "'"));
  }
  return empty_response(204);
}

void Api::Impl::send_example(Call& call, Respond respond) {
  auto message = example_message(call);
  if (!message) return respond(to_response(message.error()));
  auto shared = std::make_shared<Respond>(std::move(respond));
  auto done = [shared](Result<store::PublishOutcome> outcome) {
    if (!outcome) return (*shared)(to_response(from_store_error(outcome.error())));
    if (outcome->kind != store::PublishOutcome::Kind::kCreated) {
      return (*shared)(to_response(from_store_error(
          outcome->error.value_or(Error{ErrorCode::kInvalidArgument, "rejected"}), "application")));
    }
    (*shared)(json_response(200, wire::message_json(outcome->message, true)));
  };
  if (!deps_.publish.submit(std::move(*message), std::move(done))) {
    (*shared)(to_response(unavailable("The publish queue is full or shutting down; retry later")));
  }
}

std::expected<store::NewMessage, ApiError> Api::Impl::example_message(const Call& call) const {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  store::NewMessage msg;
  msg.app_id = found->app.id;
  msg.only_endpoint = found->endpoint.id;
  msg.event_type = f.required_string("eventType", 256);
  const auto index = f.integer("exampleIndex", 0, 1'000'000).value_or(0);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  if (msg.event_type == kPingEventType) {
    msg.payload = std::string(kPingPayload);
    return msg;
  }
  auto type = deps_.store.get_event_type(msg.event_type);
  if (!type) {
    return std::unexpected(from_store_error(type.error(), "event type '" + msg.event_type + "'"));
  }
  auto example = schema_example(*type, static_cast<std::size_t>(index));
  if (!example) return std::unexpected(example.error());
  msg.payload = std::move(*example);
  return msg;
}

Reply Api::Impl::transformation_not_implemented(Call&) {
  return std::unexpected(
      api_error(501, "not_implemented", "This API endpoint is not yet implemented."));
}

}  // namespace hookd::api
