#include "api/audit_entries.hpp"

#include <set>

#include "wire/json.hpp"

namespace hookd::api {
namespace {

nlohmann::json without_id_and_times(nlohmann::json j) {
  for (const char* key : {"id", "createdAt", "updatedAt"}) j.erase(key);
  return j;
}

// Names of headers added, removed or given another value (case as stored).
nlohmann::json changed_header_names(const store::Headers& before, const store::Headers& after) {
  std::set<std::string> names;
  for (const auto& [name, value] : before) {
    auto it = after.find(name);
    if (it == after.end() || it->second != value) names.insert(name);
  }
  for (const auto& [name, value] : after) {
    if (!before.contains(name)) names.insert(name);
  }
  return nlohmann::json(names);
}

}  // namespace

std::string audit_reason(const Call& call) {
  std::string reason;
  if (auto header = call.request.headers.get(kReasonHeader)) {
    reason = std::string(*header);
  } else if (!call.request.body.empty()) {
    auto body = nlohmann::json::parse(call.request.body, nullptr, false);
    if (body.is_object() && body.contains("reason") && body["reason"].is_string()) {
      reason = body["reason"].get<std::string>();
    }
  }
  if (reason.size() > kMaxAuditReason) reason.resize(kMaxAuditReason);
  return reason;
}

store::AuditEntry audit_entry(const Call& call, std::string action, std::string target_type,
                              std::string target_id) {
  store::AuditEntry entry;
  entry.actor = call.actor;
  entry.action = std::move(action);
  entry.target_type = std::move(target_type);
  entry.target_id = std::move(target_id);
  entry.reason = audit_reason(call);
  return entry;
}

nlohmann::json audit_state(const store::Application& app) {
  return without_id_and_times(wire::to_json(app));
}

nlohmann::json audit_state(const store::EventType& type) {
  return without_id_and_times(wire::to_json(type));
}

nlohmann::json audit_state(const store::Endpoint& ep) {
  nlohmann::json j = without_id_and_times(wire::to_json(ep));  // to_json has no secret
  j.erase("version");
  nlohmann::json names = nlohmann::json::array();
  for (const auto& [name, value] : ep.headers) names.push_back(name);
  j["headers"] = std::move(names);
  return j;
}

store::AuditEntry with_states(store::AuditEntry entry, const nlohmann::json& before,
                              const nlohmann::json& after) {
  if (!before.is_null()) entry.before = before.dump();
  if (!after.is_null()) entry.after = after.dump();
  return entry;
}

std::optional<store::AuditEntry> update_entry(store::AuditEntry entry, const nlohmann::json& before,
                                              const nlohmann::json& after) {
  nlohmann::json old_fields = nlohmann::json::object();
  nlohmann::json new_fields = nlohmann::json::object();
  for (const auto& [key, value] : after.items()) {
    if (!before.contains(key) || before[key] != value) {
      old_fields[key] = before.contains(key) ? before[key] : nlohmann::json(nullptr);
      new_fields[key] = value;
    }
  }
  for (const auto& [key, value] : before.items()) {
    if (!after.contains(key)) {
      old_fields[key] = value;
      new_fields[key] = nullptr;
    }
  }
  if (new_fields.empty()) return std::nullopt;
  return with_states(std::move(entry), old_fields, new_fields);
}

std::optional<store::AuditEntry> endpoint_update_entry(const Call& call,
                                                       const store::Endpoint& before,
                                                       const store::Endpoint& after) {
  const auto entry = audit_entry(call, "endpoint.update", "endpoint", before.id);
  const nlohmann::json old_state = audit_state(before);
  const nlohmann::json new_state = audit_state(after);
  auto out = update_entry(entry, old_state, new_state);
  const auto changed = changed_header_names(before.headers, after.headers);
  if (changed.empty()) return out;
  // A header changed, perhaps only its value: both sides name the headers, and after says
  // which ones changed.
  auto old_fields = nlohmann::json::parse(out ? out->before.value_or("{}") : "{}");
  auto new_fields = nlohmann::json::parse(out ? out->after.value_or("{}") : "{}");
  old_fields["headers"] = old_state["headers"];
  new_fields["headers"] = new_state["headers"];
  new_fields["headersChanged"] = changed;
  return with_states(entry, old_fields, new_fields);
}

}  // namespace hookd::api
