// hookd's inbound inbox under /api/v1/hookd/inbox: list events (filters: source, status,
// entity_key; paginated newest first like the other lists), show one event with its status
// history, and replay a dead event (back to `received`, audited with actor and reason). The
// inbox is otherwise written by the inbound gateway.
#include "api/api_impl.hpp"
#include "api/json_body.hpp"
#include "wire/json.hpp"
#include "wire/time.hpp"

namespace hookd::api {
namespace {

nlohmann::json optional_time(const std::optional<std::int64_t>& ms) {
  return ms ? nlohmann::json(wire::format_time(*ms)) : nlohmann::json(nullptr);
}

template <class T>
nlohmann::json optional_value(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json inbox_json(const store::InboxEvent& e, bool with_payload) {
  nlohmann::json out = {{"id", e.id},
                        {"source", e.source},
                        {"eventId", e.event_id},
                        {"businessKey", optional_value(e.business_key)},
                        {"entityKey", optional_value(e.entity_key)},
                        {"sequence", optional_value(e.sequence)},
                        {"eventTime", optional_time(e.event_time)},
                        {"receivedAt", wire::format_time(e.received_at)},
                        {"processedAt", optional_time(e.processed_at)},
                        {"status", std::string(to_string(e.status))},
                        {"attempts", e.attempts},
                        {"nextAttemptAt", wire::format_time(e.next_attempt_at)},
                        {"dependsOn", e.depends_on},
                        {"lastError", optional_value(e.last_error)}};
  if (with_payload) out["headers"] = e.headers;  // the payload: spliced by get_inbox
  return out;
}

}  // namespace

Reply Api::Impl::list_inbox(Call& call) {
  auto page = page_of(call, true);
  if (!page) return std::unexpected(page.error());
  store::InboxFilter filter;
  if (auto v = call.request.query_param("source"); v && !v->empty()) filter.source = *v;
  if (auto v = call.request.query_param("entity_key"); v && !v->empty()) filter.entity_key = *v;
  if (auto v = call.request.query_param("status"); v && !v->empty()) {
    auto status = store::inbox_status_from(*v == "forwarded" ? "processed" : *v);
    if (!status) {
      return std::unexpected(query_validation_error(
          {{"status",
            "must be one of received, processing, retry, parked, processed, stale, "
            "superseded, dead, duplicate-business-key"}}));
    }
    filter.status = *status;
  }
  auto events = deps_.store.inbox_list(filter, *page);
  if (!events) return std::unexpected(from_store_error(events.error()));
  nlohmann::json data = nlohmann::json::array();
  for (const auto& e : events->data) data.push_back(inbox_json(e, false));
  nlohmann::json out = {{"data", std::move(data)}, {"done", events->done}};
  out["iterator"] = optional_value(events->iterator);
  out["prevIterator"] = optional_value(page->iterator);
  return json_response(200, out.dump());
}

Reply Api::Impl::get_inbox(Call& call) {
  const auto& id = call.param("inbox_id");
  auto event = deps_.store.inbox_get(id);
  if (!event) return std::unexpected(from_store_error(event.error(), "inbox event '" + id + "'"));
  auto history = deps_.store.inbox_history(id);
  if (!history) return std::unexpected(from_store_error(history.error()));
  nlohmann::json out = inbox_json(*event, true);
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& h : *history) {
    rows.push_back({{"at", wire::format_time(h.at)},
                    {"from", h.from ? nlohmann::json(std::string(to_string(*h.from)))
                                    : nlohmann::json(nullptr)},
                    {"to", std::string(to_string(h.to))},
                    {"note", h.note}});
  }
  out["history"] = std::move(rows);
  if (event->entity_key) {
    if (auto entity = deps_.store.inbox_entity(event->source, *event->entity_key)) {
      out["entity"] = {{"lastSequence", optional_value(entity->last_sequence)},
                       {"state", optional_value(entity->state)},
                       {"terminal", entity->terminal},
                       {"updatedAt", wire::format_time(entity->updated_at)}};
    }
  }
  std::string body = wire::dump(out);
  wire::append_member(body, "payload",
                      wire::json_text_or_string(event->payload));  // the bytes received
  return json_response(200, std::move(body));
}

// POST /api/v1/hookd/inbox/{inbox_id}/replay {"reason": "..."}: a dead event goes back to
// `received` (attempts reset, due now) and is forwarded again; 409 if it is not dead.
Reply Api::Impl::replay_inbox(Call& call) {
  const auto& id = call.param("inbox_id");
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  Fields f(*body);
  const std::string reason = f.required_text("reason", 1024);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  store::AuditEntry audit;
  audit.actor = call.actor;
  audit.action = "inbox.replay";
  audit.target_type = "inbox_event";
  audit.target_id = id;
  audit.reason = reason;
  audit.before = R"({"status":"dead"})";
  audit.after = R"({"status":"received"})";
  auto event = deps_.store.inbox_replay_dead(id, audit);
  if (!event) return std::unexpected(from_store_error(event.error(), "inbox event '" + id + "'"));
  return json_response(200, inbox_json(*event, false).dump());
}

}  // namespace hookd::api
