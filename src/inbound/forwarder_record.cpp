// The forwarder's recording half: what one forward attempt's result means for the event
// (processed + entity state, retry later, dead), written in one store transaction each.
#include <fmt/format.h>

#include "inbound/forwarder.hpp"
#include "outbound/attempt_outcome.hpp"

namespace hookd::inbound {

void Forwarder::record(Completed done) {
  --in_flight_;
  const auto& event = done.event;
  const auto& source_ptr = deps_.sources.at(event.source);  // forwards only for known sources
  const Source& source = *source_ptr;
  if (source.config.business_key_guard) {
    if (auto it = keys_in_flight_.find(event.source + "\n" + event.business_key.value_or(""));
        it != keys_in_flight_.end()) {
      keys_in_flight_.erase(it);
    }
  }
  const auto& r = done.result;
  if (r.error == net::TransportError::kCancelled) return;  // stopping: the lease is released
  const auto now = deps_.clock.now();
  const auto decision = source.retry.next(
      outbound::outcome_of(r), static_cast<int>(event.attempts) + 1,
      TimePoint(std::chrono::milliseconds(event.received_at)), now, deps_.random.uniform01());
  store::InboxStatusUpdate u;
  u.id = event.id;
  u.lease_owner = options_.lease_owner;
  u.count_attempt = true;
  const std::string what =
      r.ok() ? fmt::format("HTTP {}", r.status) : std::string(net::to_string(r.error));
  switch (decision.kind) {
    case RetryDecision::Kind::kDelivered:
      u.to = store::InboxStatus::kProcessed;
      u.note = "forwarded: " + what;
      if (event.entity_key) u.entity = entity_after_forward(source, *event.entity_key, done.input);
      return update(std::move(u), source.name(), "forwarded");
    case RetryDecision::Kind::kRetry:
      u.to = store::InboxStatus::kRetry;
      u.note = decision.reason;
      u.error = what;
      u.next_attempt_at = decision.retry_at.time_since_epoch().count();
      return update(std::move(u), source.name(), "retry");
    default:
      return mark_dead(event, decision.reason);
  }
}

void Forwarder::mark_dead(const store::InboxEvent& event, const std::string& reason) {
  store::InboxStatusUpdate u;
  u.id = event.id;
  u.lease_owner = options_.lease_owner;
  u.to = store::InboxStatus::kDead;
  u.note = "dead: " + reason;
  u.error = reason;
  u.count_attempt = true;
  update(std::move(u), event.source, "dead");
  store::AuditEntry audit;
  audit.actor = "hookd";
  audit.action = "inbox.dead";
  audit.target_type = "inbox_event";
  audit.target_id = event.id;
  audit.reason = reason;
  audit.before = R"({"status":"processing"})";
  audit.after = R"({"status":"dead"})";
  if (auto a = deps_.store.append_audit(std::move(audit)); !a && deps_.logger) {
    deps_.logger->warn("forwarder.audit_failed", {{"error", a.error().message}});
  }
  if (deps_.logger) {
    deps_.logger->warn("inbound.dead", {{"source", event.source},
                                        {"event_id", event.event_id},
                                        {"inbox_id", event.id},
                                        {"reason", reason}});
  }
}

void Forwarder::update(store::InboxStatusUpdate u, std::string_view source,
                       std::string_view outcome) {
  auto r = deps_.store.inbox_update_status(u);
  if (!r) {
    // The lease expired meanwhile (another claim owns it) or the store is down: the event
    // stays open and is forwarded again later — at least once, deduplicated by the app.
    if (deps_.logger) {
      deps_.logger->warn("forwarder.record_failed",
                         {{"inbox_id", u.id}, {"error", r.error().message}});
    }
    return;
  }
  if (deps_.metrics && !outcome.empty()) deps_.metrics->forward(source, outcome);
}

}  // namespace hookd::inbound
