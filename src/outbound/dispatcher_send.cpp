// Admission through each endpoint's gate, and sending (see dispatcher_impl.hpp).
#include <iterator>
#include <string>
#include <utility>

#include "core/alert_types.hpp"
#include "ops/alerts.hpp"
#include "ops/hookd_metrics.hpp"
#include "ops/log.hpp"
#include "outbound/dispatcher_impl.hpp"
#include "outbound/endpoint_settings.hpp"

namespace hookd::outbound {

void Dispatcher::Impl::pump_all(TimePoint now) {
  // In turn from the endpoint after last time's first (wrapping), so that no endpoint always
  // comes first to its application's rate limit.
  auto first = endpoints_.upper_bound(pump_start_);
  if (first == endpoints_.end()) first = endpoints_.begin();
  const std::string from = first == endpoints_.end() ? std::string() : first->first;
  pump_start_ = from;
  for (auto it = endpoints_.lower_bound(from); it != endpoints_.end();) it = pump_one(it, now);
  for (auto it = endpoints_.begin(); it != endpoints_.end() && it->first < from;) {
    it = pump_one(it, now);
  }
  std::erase_if(apps_, [&](const auto& app) {
    return now - app.second.fetched_at > options_.endpoint_ttl * 60;
  });
  update_stats([&](auto& s) {
    s.held = held();
    s.in_flight = static_cast<std::int64_t>(in_flight_.size());
  });
}

std::map<std::string, EndpointState>::iterator Dispatcher::Impl::pump_one(
    std::map<std::string, EndpointState>::iterator it, TimePoint now) {
  pump(it->second, now);
  // Forget idle endpoints whose record is stale (deleted or long unused); the next claim
  // re-reads them. Endpoints with a live gate state (in flight, circuit open) stay.
  const bool idle = it->second.waiting.empty() && !it->second.circuit_open() &&
                    (!it->second.gate || it->second.gate->concurrency().in_flight() == 0);
  if (idle && now - it->second.fetched_at > options_.endpoint_ttl * 60) {
    return endpoints_.erase(it);
  }
  return std::next(it);
}

// The application's limiter, (re-)read after endpoint_ttl; a failed read keeps the last
// limit (unlimited for an application not read yet).
RateLimiter& Dispatcher::Impl::app_limiter(const std::string& app_id, TimePoint now) {
  auto [it, added] = apps_.try_emplace(app_id, AppLimit{RateLimiter({}, now), now});
  AppLimit& app = it->second;
  if (!added && now - app.fetched_at < options_.endpoint_ttl) return app.limiter;
  app.fetched_at = now;
  auto record = deps_.applications.get_application(app_id);
  if (!record) return app.limiter;
  const RateLimitConfig rate{record->rate_limit && *record->rate_limit > 0
                                 ? static_cast<std::uint32_t>(*record->rate_limit)
                                 : 0,
                             0};
  if (app.limiter.config().per_second != rate.per_second) app.limiter.reconfigure(rate, now);
  return app.limiter;
}

void Dispatcher::Impl::pump(EndpointState& state, TimePoint now) {
  if (state.gate && state.circuit_open()) note_transition(state, state.gate->tick(now));
  if (state.waiting.empty()) return;
  if (now - state.fetched_at >= options_.endpoint_ttl) refresh(state, now);
  if (!state.usable) {
    for (const auto& job : state.waiting) give_back(job.delivery, now + options_.poll_interval);
    state.waiting.clear();
    return;
  }
  const auto lease_half = options_.lease / 2;
  while (!state.waiting.empty()) {
    if (state.retry_at && now < *state.retry_at) {
      if (state.retry_is_wait && *state.retry_at - now > options_.local_wait_limit) {
        // A long wait (open circuit): the store keeps them meanwhile, no attempt counted.
        for (const auto& job : state.waiting) give_back(job.delivery, *state.retry_at);
        state.waiting.clear();
      }
      return;
    }
    state.retry_at.reset();
    if (now - state.waiting.front().held_since > lease_half) {
      // Held too long for the lease: hand it back rather than risk a second owner.
      give_back(state.waiting.front().delivery, now);
      state.waiting.pop_front();
      continue;
    }
    // The application's limit first, so that a refusal spends nothing of the gate's; when
    // it has a token the gate's admission takes it.
    RateLimiter& app_rate = app_limiter(state.endpoint.app_id, now);
    if (const TimePoint at = app_rate.next_allowed(now); at > now) {
      state.retry_at = at;
      state.retry_is_wait = true;
      continue;
    }
    Admission admission = state.gate->admit(now);
    note_transition(state, admission.transition);
    if (admission.admitted()) {
      app_rate.try_acquire(now);
      Job job = std::move(state.waiting.front());
      state.waiting.pop_front();
      job.permit = admission.permit;
      send(state, std::move(job), now);
      continue;
    }
    // kWait: re-ask at retry_at (the loop above gives long waits back); kBusy: re-asked after
    // a finish() on this endpoint, or at retry_at (the ramp's next step, a silent trickle
    // request's timeout) — held here meanwhile.
    state.retry_at = admission.retry_at;
    state.retry_is_wait = admission.verdict == GateVerdict::kWait;
    if (admission.verdict == GateVerdict::kBusy) return;
  }
}

void Dispatcher::Impl::send(EndpointState& state, Job job, TimePoint now) {
  RequestDefaults defaults{"hookd/" + options_.version, options_.connect_timeout,
                           options_.total_timeout};
  net::OutboundRequest request =
      build_request(state.endpoint, job.message, *state.signer, now, defaults);
  job.started = now;
  job.url = state.endpoint.url;
  const std::uint64_t id = next_job_id_++;
  in_flight_.emplace(id, std::move(job));
  // The callback only touches the shared mailbox: safe even after the dispatcher is gone.
  deps_.sender.send(std::move(request), [mailbox = mailbox_, id](net::AttemptResult result) {
    mailbox->post({id, std::move(result)});
  });
}

void Dispatcher::Impl::note_transition(EndpointState& state,
                                       const std::optional<CircuitTransition>& t) {
  if (!t || t->to == state.circuit) return;
  const bool was_open = state.circuit_open();
  state.circuit = t->to;
  const bool open = state.circuit_open();
  // The gauge counts open and half-open (ramping) circuits. No "expedite" on recovery: the
  // backlog drains at the ramp's pace, each retry at its own time (no thundering herd).
  if (open != was_open) {
    update_stats([&](auto& s) { s.open_circuits += open ? 1 : -1; });
    if (deps_.metrics) deps_.metrics->open_circuits.get().add(open ? 1 : -1);
  }
  // Opened: from closed to open. Closed: back to closed (after the half-open ramp).
  if (t->to == CircuitState::kOpen && !was_open) {
    ops::raise_alert(deps_.alerts, alert_types::kCircuitOpened,
                     {{"appId", state.endpoint.app_id},
                      {"endpointId", state.endpoint.id},
                      {"windowAttempts", t->window.attempts},
                      {"windowFailures", t->window.failures}});
  } else if (t->to == CircuitState::kClosed) {
    ops::raise_alert(deps_.alerts, alert_types::kCircuitClosed,
                     {{"appId", state.endpoint.app_id}, {"endpointId", state.endpoint.id}});
  }
  if (deps_.logger) {
    const char* event = t->to == CircuitState::kOpen       ? "circuit.opened"
                        : t->to == CircuitState::kHalfOpen ? "circuit.ramping_up"
                                                           : "circuit.closed";
    deps_.logger->warn(event, {{"endpoint", state.endpoint.id},
                               {"window_attempts", t->window.attempts},
                               {"window_failures", t->window.failures}});
  }
}

}  // namespace hookd::outbound
