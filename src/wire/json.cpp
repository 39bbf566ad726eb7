#include "wire/json.hpp"

#include "store/attempted.hpp"
#include "wire/attempted_json.hpp"
#include "wire/time.hpp"

namespace hookd::wire {
namespace {

template <class T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

std::string dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json json_or_string(const std::string& text) {
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (parsed.is_discarded()) return text;
  return parsed;
}

nlohmann::json to_json(const store::Application& app) {
  return {{"id", app.id},
          {"uid", optional_json(app.uid)},
          {"name", app.name},
          {"rateLimit", optional_json(app.rate_limit)},  // deprecated by Svix for throttleRate
          {"throttleRate", optional_json(app.rate_limit)},
          {"metadata", json_or_string(app.metadata)},
          {"createdAt", format_time(app.created_at)},
          {"updatedAt", format_time(app.updated_at)}};
}

nlohmann::json to_json(const store::EventType& type) {
  return {{"name", type.name},
          {"description", type.description},
          {"archived", type.archived},
          {"deprecated", false},
          {"schemas", json_or_string(type.schemas)},
          {"featureFlag", nullptr},
          {"groupName", nullptr},
          {"createdAt", format_time(type.created_at)},
          {"updatedAt", format_time(type.updated_at)}};
}

nlohmann::json to_json(const store::Endpoint& ep) {
  nlohmann::json out = {
      {"id", ep.id},
      {"uid", optional_json(ep.uid)},
      {"url", ep.url},
      {"description", ep.description},
      {"version", 1},
      {"filterTypes", optional_json(ep.filter_types)},
      {"channels", optional_json(ep.channels)},
      {"rateLimit", optional_json(ep.rate_limit)},  // deprecated by Svix for throttleRate
      {"throttleRate", optional_json(ep.rate_limit)},
      {"disabled", ep.disabled},
      {"metadata", json_or_string(ep.metadata)},
      {"createdAt", format_time(ep.created_at)},
      {"updatedAt", format_time(ep.updated_at)},
      // hookd additions
      {"disabledReason", optional_json(ep.disabled_reason)},
      {"fifo", ep.fifo},
      {"connectTimeoutMs", optional_json(ep.connect_timeout_ms)},
      {"timeoutMs", optional_json(ep.total_timeout_ms)},
      {"headerNaming", ep.header_naming},
  };
  out["retryPolicy"] = ep.retry_policy ? json_or_string(*ep.retry_policy) : nlohmann::json(nullptr);
  return out;
}

// Every member but the payload.
nlohmann::json fields_but_payload(const store::Message& msg) {
  return {{"id", msg.id},
          {"eventType", msg.event_type},
          {"eventId", optional_json(msg.event_id)},
          {"channels", optional_json(msg.channels)},
          {"tags", optional_json(msg.tags)},
          {"timestamp", format_time(msg.created_at)},
          // hookd additions
          {"orderingKey", optional_json(msg.ordering_key)},
          {"sequence", optional_json(msg.sequence)}};
}

std::string message_json(const store::Message& msg, bool payload_is_json) {
  std::string out = dump(fields_but_payload(msg));
  if (store::payload_expunged(msg)) {
    append_member(out, "payload", kExpiredPayload);  // as Svix shows an expunged payload
  } else if (payload_is_json) {
    append_member(out, "payload", msg.payload);
  } else {
    append_member(out, "payload", json_text_or_string(msg.payload));
  }
  return out;
}

std::string json_text_or_string(const std::string& text) {
  return nlohmann::json::accept(text) ? text : dump(text);
}

void append_member(std::string& object_json, std::string_view name, std::string_view value_json) {
  if (object_json.size() < 2 || object_json.back() != '}') return;  // not an object: unchanged
  object_json.pop_back();
  const std::string quoted = dump(std::string(name));
  object_json.reserve(object_json.size() + quoted.size() + value_json.size() + 3);
  if (object_json.size() > 1) object_json += ',';  // "{" alone: the first member
  object_json += quoted;
  object_json += ':';
  object_json += value_json;
  object_json += '}';
}

nlohmann::json page_fields(const std::optional<std::string>& iterator, bool done,
                           const store::PageRequest& request) {
  return {{"done", done},
          {"iterator", optional_json(iterator)},
          {"prevIterator", optional_json(request.iterator)}};
}

std::string page_json(const store::Page<store::Message>& page, const store::PageRequest& request) {
  std::string data = "[";
  for (const auto& msg : page.data) {
    if (data.size() > 1) data += ',';
    data += message_json(msg);
  }
  data += ']';
  std::string out = dump(page_fields(page.iterator, page.done, request));
  append_member(out, "data", data);
  return out;
}

std::string feed_json(const std::vector<store::FeedItem>& items, const std::string& iterator,
                      bool done) {
  std::string data = "[";
  for (const auto& item : items) {
    if (data.size() > 1) data += ',';
    std::string one = message_json(item.message);
    append_member(one, "deliveryId", dump(item.delivery_id));
    append_member(one, "status", dump(std::string(store::to_string(item.status))));
    data += one;
  }
  data += ']';
  std::string out = dump(nlohmann::json{{"iterator", iterator}, {"done", done}});
  append_member(out, "data", data);
  return out;
}

nlohmann::json to_json(const store::Attempt& a) {
  const bool ok = a.success;
  return {{"id", a.id},
          {"url", a.url},
          {"response", a.response_body},
          {"responseStatusCode", a.response_status.value_or(0)},
          {"responseDurationMs", a.duration_ms},
          {"status", ok ? 0 : 2},
          {"statusText", ok ? "success" : "fail"},
          {"triggerType", a.trigger == store::AttemptTrigger::kManual ? 1 : 0},
          {"msgId", a.msg_id},
          {"endpointId", a.endpoint_id},
          {"timestamp", format_time(a.attempted_at)},
          // hookd additions
          {"deliveryId", a.delivery_id},
          {"error", optional_json(a.error)}};
}

std::string attempt_json(const store::Attempt& attempt, const store::Message* msg) {
  std::string out = dump(to_json(attempt));
  if (msg != nullptr) append_member(out, "msg", message_json(*msg));
  return out;
}

std::string attempt_page_json(const store::Page<store::Attempt>& page,
                              const store::PageRequest& request,
                              const std::map<std::string, store::Message>* messages) {
  std::string data = "[";
  for (const auto& attempt : page.data) {
    if (data.size() > 1) data += ',';
    const store::Message* msg = nullptr;
    if (messages != nullptr) {
      if (auto it = messages->find(attempt.msg_id); it != messages->end()) msg = &it->second;
    }
    data += attempt_json(attempt, msg);
  }
  data += ']';
  std::string out = dump(page_fields(page.iterator, page.done, request));
  append_member(out, "data", data);
  return out;
}

nlohmann::json to_json(const store::Delivery& d) {
  return {{"id", d.id},
          {"msgId", d.msg_id},
          {"endpointId", d.endpoint_id},
          {"appId", d.app_id},
          {"status", std::string(store::to_string(d.status))},
          {"svixStatus", svix_status(d.status)},
          {"attempts", d.attempts},
          {"nextAttemptAt", format_time(d.next_attempt_at)},
          {"firstAttemptAt", d.first_attempt_at ? nlohmann::json(format_time(*d.first_attempt_at))
                                                : nlohmann::json(nullptr)},
          {"lastAttemptAt", d.last_attempt_at ? nlohmann::json(format_time(*d.last_attempt_at))
                                              : nlohmann::json(nullptr)},
          {"lastError", optional_json(d.last_error)},
          {"lastResponseStatusCode", optional_json(d.last_response_status)},
          {"orderingKey", optional_json(d.ordering_key)},
          {"sequence", optional_json(d.sequence)},
          {"createdAt", format_time(d.created_at)},
          {"updatedAt", format_time(d.updated_at)}};
}

nlohmann::json to_json(const store::AuditEntry& e) {
  return {{"id", e.id},
          {"at", format_time(e.at)},
          {"actor", e.actor},
          {"action", e.action},
          {"targetType", e.target_type},
          {"targetId", e.target_id},
          {"reason", e.reason},
          {"before", e.before ? json_or_string(*e.before) : nlohmann::json(nullptr)},
          {"after", e.after ? json_or_string(*e.after) : nlohmann::json(nullptr)}};
}

nlohmann::json to_json(const store::ReconcileRun& r) {
  const char* state = !r.finished_at ? "running" : r.error ? "failed" : "finished";
  return {{"id", r.id},
          {"source", r.source},
          {"trigger", r.trigger},
          {"owner", r.owner},
          {"startedAt", format_time(r.started_at)},
          {"finishedAt",
           r.finished_at ? nlohmann::json(format_time(*r.finished_at)) : nlohmann::json(nullptr)},
          {"itemsRead", r.items_read},
          {"differencesFound", r.differences_found},
          {"repaired", r.repaired},
          {"error", optional_json(r.error)},
          {"state", state}};
}

nlohmann::json to_json(const store::Difference& d) {
  return {{"id", d.id},
          {"runId", d.run_id.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.run_id)},
          {"source", d.source},
          {"kind", std::string(store::to_string(d.kind))},
          {"state", std::string(store::to_string(d.state))},
          {"subject", d.subject},
          {"eventId", optional_json(d.event_id)},
          {"entityKey", optional_json(d.entity_key)},
          {"localState", optional_json(d.local_state)},
          {"remoteState", optional_json(d.remote_state)},
          {"detail", d.detail},
          {"evidence",
           {{"request", d.evidence.request},
            {"status", optional_json(d.evidence.status)},
            {"excerpt", d.evidence.excerpt},
            {"sha256", d.evidence.sha256}}},
          {"repairable", d.repair_event.has_value()},
          {"foundAt", format_time(d.found_at)},
          {"updatedAt", format_time(d.updated_at)}};
}

nlohmann::json to_json(const store::DifferenceActionRecord& a) {
  return {{"action", std::string(store::to_string(a.action))},
          {"by", a.by},
          {"reason", a.reason},
          {"before", a.before},
          {"after", a.after},
          {"at", format_time(a.at)}};
}

nlohmann::json to_json(const store::Difference& difference,
                       const std::vector<store::DifferenceActionRecord>& actions) {
  nlohmann::json out = to_json(difference);
  nlohmann::json list = nlohmann::json::array();
  for (const auto& action : actions) list.push_back(to_json(action));
  out["actions"] = std::move(list);
  return out;
}

}  // namespace hookd::wire
