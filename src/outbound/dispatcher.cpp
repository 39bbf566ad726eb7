// Dispatcher lifecycle and the dispatcher thread's loop (see dispatcher_impl.hpp).
#include "outbound/dispatcher.hpp"
#include "hookd/threads.hpp"

#include <algorithm>
#include <utility>

#include "ops/log.hpp"
#include "outbound/dispatcher_impl.hpp"
#include "outbound/endpoint_settings.hpp"

namespace hookd::outbound {

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
void Dispatcher::begin_stop(std::chrono::steady_clock::time_point deadline) {
  impl_->begin_stop(deadline);
}
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

void Dispatcher::Impl::begin_stop(Steady::time_point deadline) {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mailbox_->mutex);
    mailbox_->stopping = true;
    if (!mailbox_->stop_deadline) mailbox_->stop_deadline = deadline;
  }
  mailbox_->changed.notify_one();
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

// One iteration: take completions (decide each attempt, free its gate slot), send what the
// freed slots admit, then ONE store round (record + defer + claim, a single
// commit) while those requests are on the wire, and send what was claimed. Under load the
// round's duration is what batches the next one: completions pile up while it commits.
void Dispatcher::Impl::run() {
  name_this_thread("hookd-dispatch");
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
      pump_all(deps_.clock.now());
      claim_now = true;  // slots freed, FIFO successors may have become claimable
    }
    claim_now = claim_now || inbox.woken || Steady::now() >= next_claim;
    if (claim_now || !unrecorded_.empty() || !give_backs_.empty()) {
      const bool full = round(claim_now);
      if (claim_now) next_claim = Steady::now() + options_.poll_interval;
      claim_now = full;
    }
    pump_all(deps_.clock.now());
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
  // Work for the store that the last round could not take (a failure) or that came after it.
  if (!unrecorded_.empty() || !give_backs_.empty()) {
    deadline = std::min(deadline, steady_now + Duration(100));
  }
  return deadline;
}

std::int64_t Dispatcher::Impl::held() const {
  std::int64_t n = static_cast<std::int64_t>(in_flight_.size() + unrecorded_.size());
  for (const auto& [id, state] : endpoints_) n += static_cast<std::int64_t>(state.waiting.size());
  return n;
}

}  // namespace hookd::outbound
