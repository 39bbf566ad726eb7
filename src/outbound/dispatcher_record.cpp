// Completions: decide each attempt's next state (stored by the next store round), update
// gates; after a round, metrics and endpoints (see dispatcher_impl.hpp).
#include <algorithm>
#include <utility>

#include "core/alert_types.hpp"
#include "ops/alerts.hpp"
#include "ops/hookd_metrics.hpp"
#include "ops/log.hpp"
#include "outbound/attempt_outcome.hpp"
#include "outbound/dispatcher_impl.hpp"

namespace hookd::outbound {
namespace {

std::string_view outcome_label(RetryDecision::Kind kind) {
  switch (kind) {
    case RetryDecision::Kind::kDelivered:
      return "delivered";
    case RetryDecision::Kind::kRetry:
      return "retry_scheduled";
    default:
      return "dead_lettered";
  }
}

double seconds(Duration d) { return static_cast<double>(d.count()) / 1000.0; }

}  // namespace

void Dispatcher::Impl::complete(std::vector<Completion> completions) {
  const TimePoint now = deps_.clock.now();
  auto& finished = unrecorded_;
  for (auto& c : completions) {
    auto node = in_flight_.extract(c.job_id);
    if (node.empty()) continue;
    Job job = std::move(node.mapped());
    auto state_it = endpoints_.find(job.delivery.endpoint_id);
    if (state_it == endpoints_.end()) continue;  // cannot happen: endpoints in use stay
    EndpointState& state = state_it->second;
    const auto& r = c.result;
    note_transition(state, state.gate->finish(job.permit, health_of(r), now,
                                              deps_.random.uniform01(), retry_after_of(r, now)));
    // A finished request frees a slot or ends a probe: re-ask the gate rather than wait for
    // a retry time it gave earlier (e.g. a half-open "busy" until the probe's timeout).
    state.retry_at.reset();
    if (r.error == net::TransportError::kCancelled && !r.request_sent) {
      give_back(job.delivery, now);  // never went out: not an attempt
      continue;
    }
    count_attempt(r);
    const int attempts_made = static_cast<int>(job.delivery.attempts) + 1;
    const TimePoint first = job.delivery.first_attempt_at
                                ? TimePoint(Duration(*job.delivery.first_attempt_at))
                                : job.started;
    RetryDecision decision =
        state.policy->next(net::outcome_of(r), attempts_made, first, now, deps_.random.uniform01());
    store::AttemptReport report;
    report.delivery_id = job.delivery.id;
    report.lease_owner = owner_;
    report.attempt = attempt_row(r, job.url, job.started, options_.body_excerpt_bytes);
    report.next = next_state(decision.kind);
    report.next_attempt_at = decision.retry_at.time_since_epoch().count();
    if (report.attempt.error && !decision.reason.empty()) {
      *report.attempt.error += " (" + decision.reason + ")";
    }
    finished.push_back({std::move(job), std::move(decision), std::move(report)});
  }
}

void Dispatcher::Impl::after_recorded(Finished& item, const Result<store::Delivery>& stored) {
  const auto& d = item.job.delivery;
  if (!stored) {
    update_stats([](auto& s) { ++s.lost_leases; });
    if (deps_.logger) {
      deps_.logger->warn("dispatcher.lease_lost",
                         {{"delivery", d.id}, {"error", stored.error().message}});
    }
    return;
  }
  const auto kind = item.decision.kind;
  update_stats([&](auto& s) {
    ++s.attempts;
    if (kind == RetryDecision::Kind::kDelivered) ++s.delivered;
    if (kind == RetryDecision::Kind::kRetry) ++s.retries_scheduled;
    if (item.decision.is_final() && kind != RetryDecision::Kind::kDelivered) ++s.dead_lettered;
    if (kind == RetryDecision::Kind::kDeadLetterAlert) ++s.alerts;
  });
  if (auto* m = deps_.metrics) {
    m->deliveries.with({std::string(outcome_label(kind))}).inc();
    if (item.decision.is_final()) {
      m->attempts_per_delivery.get().observe(static_cast<double>(stored->attempts));
    }
    if (kind == RetryDecision::Kind::kDeadLetterAlert) {
      const auto status = item.report.attempt.response_status.value_or(0);
      m->alerts.with({std::to_string(status)}).inc();
    }
    if (kind == RetryDecision::Kind::kDelivered) {
      const auto latency = deps_.clock.now() - TimePoint(Duration(item.job.message.created_at));
      m->end_to_end.get().observe(seconds(latency));
    }
  }
  if (kind == RetryDecision::Kind::kDeadLetterAlert && deps_.logger) {
    deps_.logger->warn("delivery.alert",
                       {{"delivery", d.id},
                        {"endpoint", d.endpoint_id},
                        {"status", item.report.attempt.response_status.value_or(0)},
                        {"reason", item.decision.reason}});
  } else if (item.decision.is_final() && kind != RetryDecision::Kind::kDelivered && deps_.logger) {
    deps_.logger->info(
        "delivery.dead_lettered",
        {{"delivery", d.id}, {"endpoint", d.endpoint_id}, {"reason", item.decision.reason}});
  }
  if (item.decision.is_final() && kind != RetryDecision::Kind::kDelivered) alert_dead(item);
  if (kind == RetryDecision::Kind::kDisableEndpoint) disable_endpoint(item);
}

// message.attempt.exhausted for every dead letter (Svix's operational webhook, its fields),
// and for 401/403 also hookd.endpoint.credentials_refused.
void Dispatcher::Impl::alert_dead(const Finished& item) {
  if (deps_.alerts == nullptr) return;
  const auto& d = item.job.delivery;
  const auto status = item.report.attempt.response_status;
  nlohmann::json data = {
      {"appId", d.app_id},
      {"endpointId", d.endpoint_id},
      {"msgId", d.msg_id},
      {"deliveryId", d.id},
      {"reason", item.decision.reason},
      {"lastAttempt", {{"responseStatusCode", status ? nlohmann::json(*status) : nullptr}}}};
  if (item.decision.kind == RetryDecision::Kind::kDeadLetterAlert) {
    deps_.alerts->raise(alert_types::kCredentialsRefused, data);
  }
  deps_.alerts->raise(alert_types::kExhausted, std::move(data));
}

// Several in-flight deliveries may all get a 410: each asks, the store makes the transition
// (and writes the `endpoint.disable` entry) once; the others find it already disabled.
void Dispatcher::Impl::disable_endpoint(const Finished& item) {
  const auto& d = item.job.delivery;
  const std::string reason = "HTTP 410 Gone from " + item.job.url;
  store::AuditEntry audit;
  audit.actor = owner_;
  audit.action = "endpoint.disable";
  audit.target_type = "endpoint";
  audit.target_id = d.endpoint_id;
  audit.reason = reason;  // before/after: the row's state, filled in by the store
  auto disabled =
      deps_.endpoints.set_endpoint_disabled(d.app_id, d.endpoint_id, true, reason, audit);
  if (!disabled) {
    update_stats([](auto& s) { ++s.store_errors; });
    if (deps_.logger) {
      deps_.logger->error("dispatcher.disable_failed",
                          {{"endpoint", d.endpoint_id}, {"error", disabled.error().message}});
    }
    return;
  }
  if (disabled->changed) {  // else another 410 (or a person) disabled it first
    update_stats([](auto& s) { ++s.endpoints_disabled; });
    if (deps_.logger) {
      deps_.logger->warn("endpoint.disabled", {{"endpoint", d.endpoint_id}, {"reason", reason}});
    }
    ops::raise_alert(deps_.alerts, alert_types::kEndpointDisabled,
                     {{"appId", d.app_id},
                      {"endpointId", d.endpoint_id},
                      {"trigger", "automatic"},
                      {"reason", reason}});
  }
  if (auto it = endpoints_.find(d.endpoint_id); it != endpoints_.end()) {
    it->second.fetched_at = {};  // re-read at the next pump: disabled -> its backlog goes back
  }
}

void Dispatcher::Impl::count_attempt(const net::AttemptResult& result) {
  auto* m = deps_.metrics;
  if (m == nullptr) return;
  const std::string label(metric_result(result));
  m->attempts.with({label}).inc();
  m->attempt_duration.with({label}).observe(std::chrono::duration<double>(result.duration).count());
}

}  // namespace hookd::outbound
