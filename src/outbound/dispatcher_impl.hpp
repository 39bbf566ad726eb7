// Inside the Dispatcher (see dispatcher.hpp). One dispatcher thread owns everything below
// except the Mailbox: the endpoint cache with each endpoint's EndpointGate, each application's
// rate limiter (shared by its endpoints: AppLimit), the deliveries
// waiting for their gate, the attempts in flight. HTTP completions arrive on the sender's
// thread and are posted to the Mailbox (a mutex + condition variable shared with the
// callbacks, so a late callback after stop() is harmless); the dispatcher thread takes them
// in batches, re-asks the gates, and then makes one store round trip (record + defer +
// claim, one transaction) per loop iteration.
// Thread-safety: only the dispatcher thread touches Impl's state, except mailbox_ (own lock)
// and stats_ (own lock).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/endpoint_gate.hpp"
#include "core/rate_limiter.hpp"
#include "hookd/retry.hpp"
#include "hookd/signing.hpp"
#include "outbound/dispatcher.hpp"
#include "store/store.hpp"

namespace hookd::outbound {

struct Completion {
  std::uint64_t job_id = 0;
  net::AttemptResult result;
};

// Shared with the sender's callbacks.
struct Mailbox {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<Completion> completions;
  bool woken = false;
  bool stopping = false;
  std::optional<std::chrono::steady_clock::time_point> stop_deadline;  // from begin_stop()

  void post(Completion completion);
  void wake();
};

// One claimed delivery while this dispatcher holds its lease.
struct Job {
  store::Delivery delivery;
  store::Message message;
  TimePoint held_since{};
  CircuitPermit permit;
  TimePoint started{};
  std::string url;
};

struct EndpointState {
  store::Endpoint endpoint;
  TimePoint fetched_at{};
  bool usable = false;  // enabled, signer and policy built
  std::optional<Signer> signer;
  std::optional<RetryPolicy> policy;
  std::optional<EndpointGate> gate;
  std::deque<Job> waiting;            // claim order; admitted from the front
  std::optional<TimePoint> retry_at;  // don't re-ask the gate before this
  // The gate said kWait (open circuit, rate limit): a wait past local_wait_limit sends the
  // waiting deliveries back to the store. A kBusy re-ask time (the ramp's next step, a
  // silent trickle request) keeps them here: a finish() or that time re-asks the gate.
  bool retry_is_wait = false;
  CircuitState circuit = CircuitState::kClosed;  // as last reported by the gate
  bool circuit_open() const { return circuit != CircuitState::kClosed; }
};

// An application's rate limit (Svix throttleRate): one token bucket for all deliveries to all
// its endpoints, taken besides each endpoint's own (after its gate admitted the delivery, so a
// refusal spends nothing). Re-read like an endpoint, after endpoint_ttl.
struct AppLimit {
  RateLimiter limiter;  // unlimited when the application has no limit
  TimePoint fetched_at{};
};

// A held delivery handed back to the store without an attempt, due again at `at`.
struct GiveBack {
  std::string delivery_id;
  TimePoint at{};
};

// An attempt whose result is decided but not yet stored (kept for a retry if the store fails).
struct Finished {
  Job job;
  RetryDecision decision;
  store::AttemptReport report;
};

class Dispatcher::Impl {
 public:
  Impl(DispatcherOptions options, DispatcherDeps deps);
  Status start();
  void stop();
  void begin_stop(std::chrono::steady_clock::time_point deadline);
  void wake() { mailbox_->wake(); }
  DispatcherStats stats() const;

 private:
  using Steady = std::chrono::steady_clock;

  void run();
  struct Inbox {
    std::vector<Completion> completions;
    bool woken = false;
    bool stopping = false;
  };
  Inbox wait_for_work(Steady::time_point deadline, bool completions_only);
  Steady::time_point next_deadline(Steady::time_point next_claim, TimePoint now) const;

  // Store rounds and claiming (dispatcher_round.cpp).
  bool round(bool claim);  // true when the claim was full (more may be due)
  store::DispatchRound next_round(bool claim, std::vector<Finished>& reporting);
  static constexpr int kUnknownEndpointClaims = 32;
  int absorbable(bool discover) const;
  Steady::time_point next_discovery_{};  // next round allowed to claim for unknown endpoints
  // The cached endpoint, re-read when older than the TTL or than `revision` (the revision a
  // claim returned with a delivery); nullptr when it is gone.
  EndpointState* endpoint_state(const std::string& app_id, const std::string& endpoint_id,
                                std::optional<std::int64_t> revision, TimePoint now);
  bool refresh(EndpointState& state, TimePoint now);
  using HeldIds = std::unordered_set<std::string_view>;
  HeldIds held_delivery_ids() const;  // views into the held jobs: valid until they change
  void accept(store::Delivery delivery, Result<store::Message> message, TimePoint now,
              const HeldIds& held_ids);
  void give_back(const store::Delivery& delivery, TimePoint at);
  void drain_and_release();
  std::int64_t held() const;

  // Admission and sending (dispatcher_send.cpp).
  void pump_all(TimePoint now);
  std::map<std::string, EndpointState>::iterator pump_one(
      std::map<std::string, EndpointState>::iterator it, TimePoint now);
  RateLimiter& app_limiter(const std::string& app_id, TimePoint now);
  void pump(EndpointState& state, TimePoint now);
  void send(EndpointState& state, Job job, TimePoint now);
  void note_transition(EndpointState& state, const std::optional<CircuitTransition>& t);

  // Completions (dispatcher_record.cpp).
  void complete(std::vector<Completion> completions);  // decided attempts -> unrecorded_
  void after_recorded(Finished& item, const Result<store::Delivery>& stored);
  void disable_endpoint(const Finished& item);
  void alert_dead(const Finished& item);
  void count_attempt(const net::AttemptResult& result);

  DispatcherOptions options_;
  DispatcherDeps deps_;
  std::string owner_;
  std::shared_ptr<Mailbox> mailbox_ = std::make_shared<Mailbox>();
  std::thread thread_;
  bool started_ = false;

  std::map<std::string, EndpointState> endpoints_;  // by endpoint id
  // pump_all() starts at the endpoint after the one it started at last, so the endpoints of
  // one application take its rate limit's tokens in turn.
  std::string pump_start_;
  std::map<std::string, AppLimit> apps_;  // by application id
  std::unordered_map<std::uint64_t, Job> in_flight_;
  std::uint64_t next_job_id_ = 1;
  std::vector<Finished> unrecorded_;  // decided, stored by the next round
  std::vector<GiveBack> give_backs_;  // deferred by the next round

  mutable std::mutex stats_mutex_;
  DispatcherStats stats_;
  template <class F>
  void update_stats(F&& f) {
    std::lock_guard lock(stats_mutex_);
    f(stats_);
  }
};

}  // namespace hookd::outbound
