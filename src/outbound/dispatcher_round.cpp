// The dispatcher's store rounds: one transaction per loop iteration that records decided
// attempts, defers given-back deliveries and claims new work with its messages; plus the
// endpoint cache and the final release
// (see dispatcher_impl.hpp).
#include <algorithm>
#include <unordered_set>
#include <utility>

#include "ops/hookd_metrics.hpp"
#include "ops/log.hpp"
#include "outbound/dispatcher_impl.hpp"
#include "outbound/endpoint_settings.hpp"

namespace hookd::outbound {

namespace {
store::Millis to_millis(TimePoint t) { return t.time_since_epoch().count(); }
}  // namespace

store::DispatchRound Dispatcher::Impl::next_round(bool claim, std::vector<Finished>& reporting) {
  store::DispatchRound r;
  r.lease_owner = owner_;
  r.lease_ms = options_.lease.count();
  reporting = std::exchange(unrecorded_, {});
  r.reports.reserve(reporting.size());
  for (const auto& f : reporting) r.reports.push_back(f.report);
  r.deferrals.reserve(give_backs_.size());
  for (const auto& g : give_backs_) r.deferrals.push_back({g.delivery_id, to_millis(g.at)});
  if (claim) {
    // The attempts being recorded now free their slots with this round.
    const auto room = static_cast<int>(options_.max_held - held());
    const bool discover = endpoints_.empty() || Steady::now() >= next_discovery_;
    r.claim_limit = std::max(0, std::min({room, options_.claim_batch, absorbable(discover)}));
    if (discover) next_discovery_ = Steady::now() + options_.poll_interval;
  }
  return r;
}

// How many claimed deliveries the known endpoints can queue locally (an open circuit takes
// none; a half-open one, ramping up, takes its backlog), plus, when `discover`, a little for
// endpoints not cached yet. Claiming more than this would only send the surplus straight back to
// the store (claim + defer churn, e.g. for one busy endpoint draining a backlog, or a dead one) —
// which is why the allowance for unknown endpoints is granted once per poll interval, not every
// round: granted every round, a saturated endpoint had 32 deliveries claimed and given back per
// round (half of the store's work in the PostgreSQL backlog drain).
int Dispatcher::Impl::absorbable(bool discover) const {
  int total = discover ? kUnknownEndpointClaims : 0;
  for (const auto& [id, state] : endpoints_) {
    if (!state.usable || state.circuit == CircuitState::kOpen) continue;
    total += std::max(0, options_.endpoint_backlog - static_cast<int>(state.waiting.size()));
  }
  return total;
}

bool Dispatcher::Impl::round(bool claim) {
  std::vector<Finished> reporting;
  store::DispatchRound request = next_round(claim, reporting);
  const int claim_limit = request.claim_limit;
  auto result = deps_.rounds.commit_round(std::move(request));
  update_stats([](auto& s) { ++s.rounds; });
  if (!result) {
    // Nothing of the round was kept: retried by the next one (leases still ours meanwhile;
    // if they expire, recording reports a lost lease and the delivery runs again).
    update_stats([](auto& s) { ++s.store_errors; });
    if (deps_.logger) {
      deps_.logger->error("dispatcher.round_failed",
                          {{"error", result.error().message}, {"reports", reporting.size()}});
    }
    unrecorded_.insert(unrecorded_.begin(), std::make_move_iterator(reporting.begin()),
                       std::make_move_iterator(reporting.end()));
    return false;
  }
  give_backs_.clear();
  update_stats([&](auto& s) {
    s.deferred += static_cast<std::uint64_t>(result->deferred);
    s.claimed += result->claimed.size();
  });
  for (std::size_t i = 0; i < reporting.size() && i < result->recorded.size(); ++i) {
    after_recorded(reporting[i], result->recorded[i]);
  }
  const auto now = deps_.clock.now();
  HeldIds held_ids;
  if (!result->claimed.empty()) held_ids = held_delivery_ids();
  for (std::size_t i = 0; i < result->claimed.size(); ++i) {
    auto message = i < result->messages.size()
                       ? std::move(result->messages[i])
                       : Result<store::Message>(fail(ErrorCode::kInternal, "message missing"));
    accept(std::move(result->claimed[i]), std::move(message), now, held_ids);
  }
  return claim_limit > 0 && static_cast<int>(result->claimed.size()) == claim_limit;
}

EndpointState* Dispatcher::Impl::endpoint_state(const std::string& app_id,
                                                const std::string& endpoint_id,
                                                std::optional<std::int64_t> revision,
                                                TimePoint now) {
  auto it = endpoints_.find(endpoint_id);
  if (it == endpoints_.end()) {
    EndpointState state;
    state.endpoint.id = endpoint_id;
    state.endpoint.app_id = app_id;
    it = endpoints_.emplace(endpoint_id, std::move(state)).first;
    if (!refresh(it->second, now)) {
      endpoints_.erase(it);
      return nullptr;
    }
  } else if (revision > it->second.endpoint.revision ||
             now - it->second.fetched_at >= options_.endpoint_ttl) {
    // A newer revision: the endpoint changed (new secret, URL, ...) before this delivery's
    // message was published, so the change must apply to it (the TTL covers the rest).
    refresh(it->second, now);
  }
  return &it->second;
}

// Re-reads the endpoint; false when it is gone. Keeps the gate (and its breaker state).
bool Dispatcher::Impl::refresh(EndpointState& state, TimePoint now) {
  auto ep = deps_.endpoints.get_endpoint(state.endpoint.app_id, state.endpoint.id);
  state.fetched_at = now;
  if (!ep) {
    state.usable = false;
    return ep.error().code != ErrorCode::kNotFound;
  }
  state.endpoint = std::move(*ep);
  state.usable = false;
  if (state.endpoint.disabled) return true;
  auto retry = retry_config_for(state.endpoint.retry_policy, options_.retry);
  auto policy = retry ? RetryPolicy::create(*retry) : std::unexpected(retry.error());
  if (!policy) {
    if (deps_.logger) {
      deps_.logger->warn("dispatcher.endpoint_retry_policy_invalid",
                         {{"endpoint", state.endpoint.id}, {"error", policy.error().message}});
    }
    policy = RetryPolicy::create(options_.retry);
  }
  state.policy = std::move(*policy);
  auto signer = signer_for(state.endpoint, now);
  if (!signer) {
    if (deps_.logger) {
      deps_.logger->error("dispatcher.endpoint_secret_invalid",
                          {{"endpoint", state.endpoint.id}, {"error", signer.error().message}});
    }
    return true;
  }
  state.signer = std::move(*signer);
  RateLimitConfig rate = options_.gate.rate;
  if (state.endpoint.rate_limit && *state.endpoint.rate_limit > 0) {
    rate = {static_cast<std::uint32_t>(*state.endpoint.rate_limit), 0};
  }
  if (!state.gate) {
    EndpointGateConfig config = options_.gate;
    config.rate = rate;
    state.gate.emplace(*EndpointGate::create(config, now));  // validated at start()
  } else if (state.gate->rate_limiter().config().per_second != rate.per_second) {
    state.gate->set_rate_limit(rate, now);
  }
  state.usable = true;
  return true;
}

void Dispatcher::Impl::accept(store::Delivery delivery, Result<store::Message> message,
                              TimePoint now, const HeldIds& held_ids) {
  EndpointState* state =
      endpoint_state(delivery.app_id, delivery.endpoint_id, delivery.endpoint_revision, now);
  if (state == nullptr || !state->usable) {
    give_back(delivery, now + options_.poll_interval);
    return;
  }
  // Held already (an attempt outlived the lease and we claimed it again): keep one copy.
  if (held_ids.contains(delivery.id)) return;
  if (static_cast<int>(state->waiting.size()) >= options_.endpoint_backlog) {
    give_back(delivery, now + options_.overflow_delay);
    return;
  }
  if (!message) {
    if (deps_.logger) {
      deps_.logger->error("dispatcher.message_unreadable",
                          {{"delivery", delivery.id}, {"error", message.error().message}});
    }
    give_back(delivery, now + options_.poll_interval);
    return;
  }
  state->waiting.push_back(Job{std::move(delivery), std::move(*message), now, {}, {}, {}});
}

Dispatcher::Impl::HeldIds Dispatcher::Impl::held_delivery_ids() const {
  HeldIds ids;
  for (const auto& [id, job] : in_flight_) ids.insert(job.delivery.id);
  for (const auto& f : unrecorded_) ids.insert(f.job.delivery.id);
  for (const auto& [id, state] : endpoints_) {
    for (const auto& job : state.waiting) ids.insert(job.delivery.id);
  }
  return ids;
}

void Dispatcher::Impl::give_back(const store::Delivery& delivery, TimePoint at) {
  give_backs_.push_back({delivery.id, at});
}

void Dispatcher::Impl::drain_and_release() {
  auto grace_end = Steady::now() + options_.stop_grace;
  {
    std::lock_guard lock(mailbox_->mutex);
    if (mailbox_->stop_deadline) grace_end = std::min(grace_end, *mailbox_->stop_deadline);
  }
  while (!in_flight_.empty() && Steady::now() < grace_end) {
    Inbox inbox = wait_for_work(grace_end, true);
    if (!inbox.completions.empty()) complete(std::move(inbox.completions));
  }
  // Record what finished (no claim); release_leases then hands back everything still
  // leased, due now, so pending give-backs need no round of their own.
  give_backs_.clear();
  if (!unrecorded_.empty()) round(false);
  auto released = deps_.deliveries.release_leases(owner_);
  if (!released && deps_.logger) {
    deps_.logger->error("dispatcher.release_failed", {{"error", released.error().message}});
  }
  if (deps_.logger) {
    deps_.logger->info("dispatcher.stopped", {{"released", released ? *released : -1},
                                              {"abandoned_in_flight", in_flight_.size()}});
  }
  endpoints_.clear();
  in_flight_.clear();
  update_stats([](auto& s) {
    s.held = 0;
    s.in_flight = 0;
  });
}

}  // namespace hookd::outbound
