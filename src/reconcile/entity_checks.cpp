// The stuck check and the parked hand-off: see entity_checks.hpp.
#include "reconcile/entity_checks.hpp"

#include <nlohmann/json.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "inbound/business_key.hpp"
#include "inbound/event_fields.hpp"
#include "inbound/forwarder.hpp"
#include "reconcile/feed_page.hpp"
#include "reconcile/page_fetch.hpp"

namespace hookd::reconcile {
namespace {

using nlohmann::json;

std::string status_url_of(const std::string& pattern, const std::string& entity) {
  std::string url = pattern;
  const std::string encoded = url_encode(entity);
  for (auto at = url.find("{entity}"); at != std::string::npos;
       at = url.find("{entity}", at + encoded.size())) {
    url.replace(at, 8, encoded);
  }
  return url;
}

void place(json& doc, const std::string& pointer, const std::string& value) {
  if (pointer.empty()) return;
  try {
    doc[json::json_pointer(pointer)] = value;
  } catch (const json::exception&) {
    // A pointer that cannot be written (e.g. an array index): left out.
  }
}

}  // namespace

store::InboxEvent synthesized_state_event(const inbound::Source& source,
                                          const std::string& entity_key, const std::string& state) {
  json doc = json::object();
  place(doc, source.settings.entity_key, entity_key);
  place(doc, source.settings.state, state);
  store::InboxEvent ev;
  ev.source = source.name();
  ev.event_id = "reconcile:" + entity_key + ":" + state;
  ev.business_key = source.name() + ":" + ev.event_id;
  ev.entity_key = entity_key;
  ev.headers = {{"content-type", "application/json"}};
  ev.payload = doc.dump();
  return ev;
}

std::optional<std::string> check_stuck(const ReconcileOptions& o, ReconcilerDeps& deps,
                                       const std::string& run_id) {
  if (o.status_url.empty()) return std::nullopt;
  const auto& source = *deps.source;
  auto stuck = deps.reconcile_store.reconcile_stuck_entities(
      source.name(), deps.clock.now_ms() - o.stuck_after.count(), o.max_stuck_per_run);
  if (!stuck) return "stuck entities: " + stuck.error().message;
  // One entity's failed status call does not keep the others unchecked: the run goes on and
  // closes with the first failure (and how many there were).
  std::vector<store::DifferenceFinding> findings;
  std::optional<std::string> first_failure;
  int failures = 0;
  // An entity whose state could not be read is itself a difference (kind stuck, once per
  // entity): stuck here, unknown there — a person looks at it.
  auto failed = [&](const store::InboxEntity& entity, const std::string& url,
                    const net::AttemptResult& answer, std::string why) {
    store::Difference d;
    d.run_id = run_id;
    d.source = source.name();
    d.kind = store::DifferenceKind::kStuck;
    d.subject = entity.entity_key;
    d.entity_key = entity.entity_key;
    d.local_state = entity.state;
    d.detail = "entity " + entity.entity_key + " is " + entity.state.value_or("(none)") +
               " here past stuck_after; its state at the provider is unknown: " + why;
    d.evidence = evidence_of(url, answer);
    findings.push_back({std::move(d), false});
    if (!first_failure) first_failure = "status of " + entity.entity_key + ": " + why;
    ++failures;
  };
  for (const auto& entity : *stuck) {
    const std::string url = status_url_of(o.status_url, entity.entity_key);
    auto answer = fetch_page(deps.http, url, o.feed_token, o.status_timeout);
    if (!answer.ok() || answer.status < 200 || answer.status > 299) {
      failed(entity, url, answer,
             (answer.ok() ? "HTTP " + std::to_string(answer.status)
                          : std::string(net::to_string(answer.error))) +
                 " (GET " + url + ")");
      continue;
    }
    auto doc = inbound::parse_json_bounded(answer.body, o.max_json_depth);
    const json* at = doc ? inbound::at_pointer(*doc, o.status_state) : nullptr;
    auto remote = at ? inbound::scalar_text(*at) : std::nullopt;
    if (!remote || remote->empty()) {
      failed(entity, url, answer, "no state at " + o.status_state);
      continue;
    }
    if (entity.state && *entity.state == *remote) continue;
    store::Difference d;
    d.run_id = run_id;
    d.source = source.name();
    d.kind = store::DifferenceKind::kStateMismatch;
    d.subject = entity.entity_key + "\n" + *remote;
    d.entity_key = entity.entity_key;
    d.local_state = entity.state;
    d.remote_state = *remote;
    d.detail = "entity " + entity.entity_key + " is " + entity.state.value_or("(none)") +
               " here, " + *remote + " at the provider";
    d.evidence = evidence_of(url, answer);
    d.repair_event = synthesized_state_event(source, entity.entity_key, *remote);
    const bool repair = o.repair == RepairMode::kAuto && source.is_terminal(*remote);
    findings.push_back({std::move(d), repair});
  }
  if (!findings.empty()) {
    if (auto recorded = deps.reconcile_store.reconcile_record(findings); !recorded) {
      return "recording state mismatches: " + recorded.error().message;
    }
  }
  if (!first_failure) return std::nullopt;
  return failures == 1 ? *first_failure
                       : *first_failure + " (and " + std::to_string(failures - 1) +
                             " more status calls failed)";
}

std::optional<std::string> hand_off_parked(const ReconcileOptions& o, ReconcilerDeps& deps,
                                           const std::string& run_id) {
  const auto& source = *deps.source;
  auto parked =
      deps.reconcile_store.reconcile_timed_out_parked(source.name(), o.max_parked_per_run);
  if (!parked) return "timed-out parked events: " + parked.error().message;
  for (const auto& ev : *parked) {
    // A dependency the feed walk (or a webhook) brought in: the forwarder releases it in order.
    const bool all_arrived = std::ranges::all_of(ev.depends_on, [&](const std::string& dep) {
      return deps.inbox_store.inbox_find(source.name(), dep).has_value();
    });
    if (!ev.depends_on.empty() && all_arrived) continue;
    store::Difference d = inbound::parked_timeout_difference(
        source, ev, fmt::format("{}", fmt::join(ev.depends_on, ", ")));
    d.run_id = run_id;
    // Recorded unless it is already (the forwarder's park timeout records it first).
    if (auto r = deps.reconcile_store.reconcile_record({{d, false}}); !r) {
      return "recording a parked timeout: " + r.error().message;
    }
    store::DifferenceFilter filter;
    filter.source = source.name();
    filter.kind = store::DifferenceKind::kParkedTimeout;
    filter.state = store::DifferenceState::kOpen;
    store::PageRequest page;
    page.limit = store::PageRequest::kMaxLimit;
    for (;;) {
      auto open = deps.reconcile_store.reconcile_list_differences(filter, page);
      if (!open) return "parked timeouts: " + open.error().message;
      auto it = std::ranges::find(open->data, ev.event_id, &store::Difference::subject);
      if (it != open->data.end()) {
        store::DifferenceAct act;
        act.difference_id = it->id;
        act.action = store::DifferenceAction::kRelease;
        act.by = "auto";
        act.reason = "the dependency was not in the feed by the end of run " + run_id;
        if (auto r = deps.reconcile_store.reconcile_act(act); !r) {
          return "releasing " + ev.event_id + ": " + r.error().message;
        }
        break;
      }
      if (open->done || !open->iterator) break;
      page.iterator = open->iterator;
    }
  }
  return std::nullopt;
}

}  // namespace hookd::reconcile
