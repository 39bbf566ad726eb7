#include "store/reconcile_codec.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace hookd::store {
namespace {

using nlohmann::json;

json optional_json(const std::optional<std::string>& v) { return v ? json(*v) : json(nullptr); }
json optional_json(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); }

std::optional<std::string> optional_text(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<std::int64_t> optional_int(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

// What is kept of text that came from outside (a provider's ids): a stray byte must never
// make the write fail.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string entity_state_text(const std::optional<InboxEntity>& e) {
  return e && e->state ? *e->state : "absent";
}

std::string difference_state_json(const Difference& d, const std::optional<std::string>& entity) {
  json j = {{"id", d.id},
            {"source", d.source},
            {"kind", std::string(to_string(d.kind))},
            {"subject", d.subject},
            {"state", std::string(to_string(d.state))},
            {"event_id", optional_json(d.event_id)},
            {"entity_key", optional_json(d.entity_key)},
            {"local_state", optional_json(d.local_state)},
            {"remote_state", optional_json(d.remote_state)}};
  if (entity) j["entity_state"] = *entity;
  return dump(j);
}

}  // namespace

std::string encode_repair_event(const InboxEvent& ev) {
  return dump(json{{"source", ev.source},
                   {"event_id", ev.event_id},
                   {"business_key", optional_json(ev.business_key)},
                   {"entity_key", optional_json(ev.entity_key)},
                   {"sequence", optional_json(ev.sequence)},
                   {"event_time", optional_json(ev.event_time)},
                   {"depends_on", ev.depends_on},
                   {"headers", ev.headers}});
}

InboxEvent decode_repair_event(const std::string& text, std::string payload) {
  InboxEvent ev;
  ev.payload = std::move(payload);
  auto j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return ev;
  ev.source = optional_text(j, "source").value_or("");
  ev.event_id = optional_text(j, "event_id").value_or("");
  ev.business_key = optional_text(j, "business_key");
  ev.entity_key = optional_text(j, "entity_key");
  ev.sequence = optional_int(j, "sequence");
  ev.event_time = optional_int(j, "event_time");
  if (auto deps = j.find("depends_on"); deps != j.end() && deps->is_array()) {
    for (const auto& d : *deps) {
      if (d.is_string()) ev.depends_on.push_back(d.get<std::string>());
    }
  }
  if (auto headers = j.find("headers"); headers != j.end() && headers->is_object()) {
    for (const auto& [name, value] : headers->items()) {
      if (value.is_string()) ev.headers[name] = value.get<std::string>();
    }
  }
  return ev;
}

Difference missing_difference_of(const ReconcilePage& page, const ReconcileItem& item) {
  Difference d = item.difference;
  if (d.evidence.request.empty()) d.evidence = page.evidence;
  d.run_id = page.run_id;
  d.source = page.source;
  d.kind = DifferenceKind::kMissing;
  d.subject = item.event.event_id;
  d.event_id = item.event.event_id;
  d.repair_event = item.event;
  d.repair_event->source = page.source;
  return d;
}

Difference recorded_difference(Difference d, std::string id, DifferenceState state, Millis now) {
  d.id = std::move(id);
  d.state = state;
  d.found_at = now;
  d.updated_at = now;
  if (d.evidence.excerpt.size() > kMaxEvidenceExcerpt)
    d.evidence.excerpt.resize(kMaxEvidenceExcerpt);
  return d;
}

std::string reconciled_note(const std::string& difference_id) {
  return "reconciled: " + difference_id;
}

std::string released_note(const std::string& difference_id) {
  return "released: dependency waived by difference " + difference_id;
}

InboxEvent repair_insert(const Difference& d) {
  InboxEvent ev = d.repair_event.value_or(InboxEvent{});
  if (ev.source.empty()) ev.source = d.source;
  ev.history_note = reconciled_note(d.id);
  return ev;
}

DifferenceActionRecord auto_repair_record(const Difference& d, Millis now) {
  return DifferenceActionRecord{
      .difference_id = d.id,
      .action = DifferenceAction::kRepair,
      .by = "auto",
      .reason = "inserted through the inbound path",
      .before = std::string(to_string(DifferenceState::kOpen)),
      .after = std::string(to_string(DifferenceState::kRepaired)),
      .at = now,
  };
}

Headers released_headers(Headers headers, const std::vector<std::string>& unsettled) {
  if (unsettled.empty()) return headers;
  std::string list;
  for (const auto& id : unsettled) list += (list.empty() ? "" : ",") + id;
  headers[std::string(kDependencyMissingHeader)] = std::move(list);
  return headers;
}

Result<ActPlan> plan_act(const Difference& d, const DifferenceAct& act) {
  if (act.action != DifferenceAction::kRelease && d.state != DifferenceState::kOpen) {
    return fail(ErrorCode::kConflict,
                fmt::format("difference {} is {}: only an open difference takes {}", d.id,
                            to_string(d.state), to_string(act.action)));
  }
  ActPlan plan;
  plan.to = d.state;
  switch (act.action) {
    case DifferenceAction::kRepair:
      if (d.kind == DifferenceKind::kStuck) {
        return fail(ErrorCode::kInvalidArgument,
                    "a stuck entity has nothing to insert: correct its state or ignore it");
      }
      if (d.kind == DifferenceKind::kParkedTimeout) {
        plan.release_parked = true;
      } else if (!d.repair_event) {
        return fail(ErrorCode::kInvalidArgument,
                    "difference " + d.id + " keeps no event to insert");
      } else {
        plan.insert_repair_event = true;
      }
      plan.to = DifferenceState::kRepaired;
      break;
    case DifferenceAction::kIgnore:
      plan.to = DifferenceState::kResolved;
      break;
    case DifferenceAction::kCorrectState: {
      if (!act.entity) {
        return fail(ErrorCode::kInvalidArgument, "correct_state needs the entity's state");
      }
      InboxEntity e = *act.entity;
      if (e.source.empty()) e.source = d.source;
      if (e.entity_key.empty()) e.entity_key = d.entity_key.value_or("");
      if (e.entity_key.empty()) {
        return fail(ErrorCode::kInvalidArgument, "difference " + d.id + " names no entity");
      }
      plan.entity = std::move(e);
      plan.to = DifferenceState::kResolved;
      break;
    }
    case DifferenceAction::kRelease:
      if (d.kind != DifferenceKind::kParkedTimeout) {
        return fail(ErrorCode::kInvalidArgument,
                    "only a parked_timeout difference can be released");
      }
      plan.release_parked = true;
      break;
  }
  return plan;
}

DifferenceActionRecord act_record(const Difference& d, const DifferenceAct& act,
                                  const ActPlan& plan,
                                  const std::optional<InboxEntity>& entity_before, Millis now) {
  DifferenceActionRecord r{
      .difference_id = d.id,
      .action = act.action,
      .by = act.by,
      .reason = act.reason,
      .before = std::string(to_string(d.state)),
      .after = std::string(to_string(plan.to)),
      .at = now,
  };
  if (plan.entity) {
    r.before = entity_state_text(entity_before);
    r.after = entity_state_text(plan.entity);
  }
  return r;
}

Difference acted_difference(Difference d, const ActPlan& plan, Millis now) {
  d.state = plan.to;
  d.updated_at = now;
  return d;
}

AuditEntry difference_audit(AuditEntry audit, const Difference& before, const Difference& after,
                            const DifferenceActionRecord& record, const ActPlan& plan) {
  if (audit.target_id.empty()) {
    audit.target_type = "reconcile_difference";
    audit.target_id = before.id;
  }
  std::optional<std::string> entity_before, entity_after;
  if (plan.entity) {
    entity_before = record.before;
    entity_after = record.after;
  }
  if (!audit.before || audit.before->empty()) {
    audit.before = difference_state_json(before, entity_before);
  }
  if (!audit.after || audit.after->empty())
    audit.after = difference_state_json(after, entity_after);
  return audit;
}

}  // namespace hookd::store
