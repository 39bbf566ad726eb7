// Dispatcher lifecycle, the dispatcher thread's loop, and claiming (see dispatcher_impl.hpp).
#include "outbound/dispatcher.hpp"

#include <algorithm>
#include <utility>

#include "ops/log.hpp"
#include "outbound/dispatcher_impl.hpp"
#include "outbound/endpoint_settings.hpp"

namespace hookd::outbound {

namespace {
store::Millis to_millis(TimePoint t) { return t.time_since_epoch().count(); }
}  // namespace

void Mailbox::post(Completion completion) {
  {
    std::lock_guard lock(mutex);
    completions.push_back(std::move(completion));
  }
  changed.notify_one();
}

void Mailbox::wake() {
  {
    std::lock_guard lock(mutex);
    woken = true;
  }
  changed.notify_one();
}

Dispatcher::Dispatcher(DispatcherOptions options, DispatcherDeps deps)
    : impl_(std::make_unique<Impl>(std::move(options), deps)) {}
Dispatcher::~Dispatcher() { stop(); }
Status Dispatcher::start() { return impl_->start(); }
void Dispatcher::stop() { impl_->stop(); }
void Dispatcher::wake() { impl_->wake(); }
DispatcherStats Dispatcher::stats() const { return impl_->stats(); }

Dispatcher::Impl::Impl(DispatcherOptions options, DispatcherDeps deps)
    : options_(std::move(options)), deps_(deps), owner_(options_.lease_owner()) {}

Status Dispatcher::Impl::start() {
  if (started_) return {};
  if (auto policy = RetryPolicy::create(options_.retry); !policy) {
    return std::unexpected(policy.error());
  }
  if (auto gate = EndpointGate::create(options_.gate, deps_.clock.now()); !gate) {
    return std::unexpected(gate.error());
  }
  started_ = true;
  thread_ = std::thread([this] { run(); });
  return {};
}

void Dispatcher::Impl::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mailbox_->mutex);
    mailbox_->stopping = true;
  }
  mailbox_->changed.notify_one();
  thread_.join();
}

DispatcherStats Dispatcher::Impl::stats() const {
  std::lock_guard lock(stats_mutex_);
  return stats_;
}

Dispatcher::Impl::Inbox Dispatcher::Impl::wait_for_work(Steady::time_point deadline,
                                                        bool completions_only) {
  std::unique_lock lock(mailbox_->mutex);
  mailbox_->changed.wait_until(lock, deadline, [&] {
    return !mailbox_->completions.empty() ||
           (!completions_only && (mailbox_->woken || mailbox_->stopping));
  });
  Inbox inbox;
  inbox.completions.swap(mailbox_->completions);
  inbox.woken = std::exchange(mailbox_->woken, false);
  inbox.stopping = mailbox_->stopping;
  return inbox;
}

void Dispatcher::Impl::run() {
  auto next_claim = Steady::now();
  bool claim_now = true;
  while (true) {
    const auto deadline = claim_now ? Steady::now() : next_deadline(next_claim, deps_.clock.now());
    Inbox inbox = wait_for_work(deadline, false);
    if (inbox.stopping) {
      if (!inbox.completions.empty()) complete(std::move(inbox.completions));
      break;
    }
    if (!inbox.completions.empty()) {
      complete(std::move(inbox.completions));
      claim_now = true;  // slots freed, FIFO successors may have become claimable
    }
    claim_now = claim_now || inbox.woken || Steady::now() >= next_claim;
    if (!unrecorded_.empty()) record(std::exchange(unrecorded_, {}));
    if (claim_now) {
      claim_now = claim();
      next_claim = Steady::now() + options_.poll_interval;
    }
    pump_all(deps_.clock.now());
    flush_give_backs();
  }
  drain_and_release();
}

Dispatcher::Impl::Steady::time_point Dispatcher::Impl::next_deadline(Steady::time_point next_claim,
                                                                     TimePoint now) const {
  auto deadline = next_claim;
  const auto steady_now = Steady::now();
  for (const auto& [id, state] : endpoints_) {
    if (state.waiting.empty() || !state.retry_at) continue;
    deadline = std::min(deadline, steady_now + std::max(Duration(0), *state.retry_at - now));
  }
  if (!unrecorded_.empty()) deadline = std::min(deadline, steady_now + Duration(100));
  return deadline;
}

std::int64_t Dispatcher::Impl::held() const {
  std::int64_t n = static_cast<std::int64_t>(in_flight_.size() + unrecorded_.size());
  for (const auto& [id, state] : endpoints_) n += static_cast<std::int64_t>(state.waiting.size());
  return n;
}

bool Dispatcher::Impl::claim() {
  const auto room = static_cast<int>(options_.max_held - held());
  if (room <= 0) return false;
  const int limit = std::min(room, options_.claim_batch);
  auto claimed = deps_.store.claim_due({owner_, options_.lease.count(), limit});
  if (!claimed) {
    update_stats([](auto& s) { ++s.store_errors; });
    if (deps_.logger)
      deps_.logger->error("dispatcher.claim_failed", {{"error", claimed.error().message}});
    return false;
  }
  const auto n = claimed->size();
  update_stats([&](auto& s) { s.claimed += n; });
  const auto now = deps_.clock.now();
  for (auto& delivery : *claimed) accept(std::move(delivery), now);
  return static_cast<int>(n) == limit;
}

EndpointState* Dispatcher::Impl::endpoint_state(const std::string& app_id,
                                                const std::string& endpoint_id, TimePoint now) {
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
  } else if (now - it->second.fetched_at >= options_.endpoint_ttl) {
    refresh(it->second, now);
  }
  return &it->second;
}

// Re-reads the endpoint; false when it is gone. Keeps the gate (and its breaker state).
bool Dispatcher::Impl::refresh(EndpointState& state, TimePoint now) {
  auto ep = deps_.store.get_endpoint(state.endpoint.app_id, state.endpoint.id);
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

void Dispatcher::Impl::accept(store::Delivery delivery, TimePoint now) {
  EndpointState* state = endpoint_state(delivery.app_id, delivery.endpoint_id, now);
  if (state == nullptr || !state->usable) {
    give_back(delivery, now + options_.poll_interval);
    return;
  }
  if (static_cast<int>(state->waiting.size()) >= options_.endpoint_backlog) {
    give_back(delivery, now + options_.overflow_delay);
    return;
  }
  auto message = deps_.store.get_message(delivery.app_id, delivery.msg_id);
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

void Dispatcher::Impl::give_back(const store::Delivery& delivery, TimePoint at) {
  give_backs_.push_back({delivery.id, at});
}

void Dispatcher::Impl::flush_give_backs() {
  if (give_backs_.empty()) return;
  std::vector<store::Deferral> items;
  items.reserve(give_backs_.size());
  for (const auto& g : give_backs_) items.push_back({g.delivery_id, to_millis(g.at)});
  give_backs_.clear();
  auto deferred = deps_.store.defer_deliveries(items, owner_);
  if (!deferred) {
    // The leases expire on their own; nothing is lost.
    update_stats([](auto& s) { ++s.store_errors; });
    if (deps_.logger) {
      deps_.logger->error("dispatcher.defer_failed", {{"error", deferred.error().message}});
    }
    return;
  }
  update_stats([&](auto& s) { s.deferred += items.size(); });
}

void Dispatcher::Impl::drain_and_release() {
  const auto grace_end = Steady::now() + options_.stop_grace;
  while (!in_flight_.empty() && Steady::now() < grace_end) {
    Inbox inbox = wait_for_work(grace_end, true);
    if (!inbox.completions.empty()) complete(std::move(inbox.completions));
  }
  if (!unrecorded_.empty()) record(std::exchange(unrecorded_, {}));
  give_backs_.clear();  // release_leases hands back everything still leased, due now
  auto released = deps_.store.release_leases(owner_);
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
