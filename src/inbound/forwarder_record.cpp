// The forwarder's recording half: what one forward attempt's result means for the event
// (processed + entity state, retry later, dead), and the round that writes the queued status
// changes together with the next claim (one store transaction per loop turn).
#include <fmt/format.h>

#include "inbound/forwarder.hpp"
#include "net/retry_outcome.hpp"

namespace hookd::inbound {

void Forwarder::record(Completed done) {
  --in_flight_;
  const auto& event = done.event;
  const auto& source_ptr = deps_.sources.at(event.source);  // forwards only for known sources
  const Source& source = *source_ptr;
  if (source.settings.business_key_guard) {
    if (auto it = keys_in_flight_.find(event.source + "\n" + event.business_key.value_or(""));
        it != keys_in_flight_.end()) {
      keys_in_flight_.erase(it);
    }
  }
  const auto& r = done.result;
  if (r.error == net::TransportError::kCancelled) return;  // stopping: the lease is released
  const auto now = deps_.clock.now();
  const auto decision = source.retry.next(net::outcome_of(r), static_cast<int>(event.attempts) + 1,
                                          TimePoint(std::chrono::milliseconds(event.received_at)),
                                          now, deps_.random.uniform01());
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
  store::AuditEntry audit;  // written in the status change's own transaction
  audit.actor = "hookd";
  audit.action = "inbox.dead";
  audit.target_type = "inbox_event";
  audit.target_id = event.id;
  audit.reason = reason;
  audit.before = R"({"status":"processing"})";
  audit.after = R"({"status":"dead"})";
  u.audit = std::move(audit);
  pending_.push_back(Pending{std::move(u), event.source, "dead", event.event_id});
}

void Forwarder::update(store::InboxStatusUpdate u, std::string_view source,
                       std::string_view outcome) {
  pending_.push_back(Pending{std::move(u), std::string(source), std::string(outcome), ""});
}

// Writes the queued status changes and claims new work in one transaction. A failed item (its
// lease expired and another claim owns it) or a failed round (the store is down) leaves those
// events open: they are forwarded or decided again later — at least once, deduplicated by the
// app.
bool Forwarder::round(int claim_limit) {
  if (pending_.empty() && claim_limit <= 0) return false;
  store::InboxRound r;
  r.lease_owner = options_.lease_owner;
  r.lease_ms = options_.lease.count();
  r.claim_limit = claim_limit;
  std::vector<Pending> written;
  written.swap(pending_);
  r.updates.reserve(written.size());
  for (const auto& p : written) r.updates.push_back(p.update);
  auto result = deps_.rounds != nullptr ? deps_.rounds->commit_round(std::move(r))
                                        : deps_.inbox.inbox_round(r);
  settling_.clear();  // committed (or lost with the round): no longer "in this batch"
  if (!result) {
    if (deps_.logger) {
      deps_.logger->warn("forwarder.round_failed",
                         {{"events", written.size()}, {"error", result.error().message}});
    }
    return false;
  }
  report(written, result->updated);
  const bool full = claim_limit > 0 && static_cast<int>(result->claimed.size()) == claim_limit;
  for (auto& e : result->claimed) process(std::move(e));
  return full;
}

void Forwarder::report(const std::vector<Pending>& written,
                       const std::vector<Result<store::InboxEvent>>& results) {
  for (std::size_t i = 0; i < written.size() && i < results.size(); ++i) {
    const auto& p = written[i];
    if (!results[i]) {
      if (deps_.logger) {
        deps_.logger->warn("forwarder.record_failed",
                           {{"inbox_id", p.update.id}, {"error", results[i].error().message}});
      }
      continue;
    }
    if (deps_.metrics && !p.outcome.empty()) deps_.metrics->forward(p.source, p.outcome);
    if (p.update.to == store::InboxStatus::kDead && deps_.logger) {
      deps_.logger->warn("inbound.dead", {{"source", p.source},
                                          {"event_id", p.event_id},
                                          {"inbox_id", p.update.id},
                                          {"reason", p.update.error.value_or("")}});
    }
  }
}

}  // namespace hookd::inbound
