// Forwarder: the asynchronous half of the inbound gateway. One thread of its own claims due
// inbox events (the store hands out only the head of each entity, in sequence order, under a
// lease), decides per event with decide() (park / superseded / stale / duplicate business key /
// forward), and forwards through a net::HttpSender (a libcurl client of its own: one
// request per attempt, never a silent resend), signed with Standard Webhooks and carrying
// Idempotency-Key. Each outcome is a status change (status + history + entity state);
// failed forwards are retried with the source's RetryPolicy and go `dead` when it gives up
// (audit log entry in the same transaction, metric, warning) — the inbox's dead-letter list
// is `status=dead`. Status changes are collected and written, together with the next claim,
// by ONE store.inbox_round transaction per loop turn (group commit, like the outbound
// dispatcher's dispatch_round; committed without an fsync of its own, see InboxStore).
// HTTP completions only append to a mailbox; the forwarder thread alone touches the store,
// so decisions for one node are serialized. A crash leaves leases that expire; stop() waits
// for forwards in flight (up to the grace), records them, and releases the rest.
// Thread-safety: start()/stop() from the owner thread; wake() from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "hookd/env.hpp"
#include "inbound/inbound_metrics.hpp"
#include "inbound/inbox_rounds.hpp"
#include "inbound/ordering.hpp"
#include "inbound/source.hpp"
#include "net/http_sender.hpp"
#include "ops/alerts.hpp"
#include "ops/log.hpp"
#include "store/store.hpp"

namespace hookd::inbound {

struct ForwarderOptions {
  std::string lease_owner = "hookd/forwarder";
  std::chrono::milliseconds lease{60'000};
  int max_in_flight = 16;
  int claim_batch = 64;
  std::chrono::milliseconds poll_interval{1000};
  std::chrono::milliseconds timeout{10'000};  // one forward attempt
  std::chrono::milliseconds stop_grace{30'000};
  // A forward that must wait for another event with the same business key in flight.
  std::chrono::milliseconds business_key_wait{200};
  // The forwarder thread's nice level: under CPU contention, accepting and storing events
  // (the receiver, the inbox commits) wins over forwarding, which only catches up later.
  int nice = 0;
};

struct ForwarderDeps {
  store::InboxStore& inbox;
  net::HttpSender& sender;
  Clock& clock;
  Random& random;
  std::map<std::string, std::shared_ptr<const Source>, std::less<>> sources;
  InboundMetrics* metrics = nullptr;
  const ops::Logger* logger = nullptr;
  // Where rounds are committed; null: inbox.inbox_round directly (see InboxRounds).
  InboxRounds* rounds = nullptr;
  // Optional: hookd.inbound.parked_timeout, once per event (when it is flagged).
  ops::AlertSink* alerts = nullptr;
};

// The parked_timeout difference of `event`, waiting for `waiting_for` (its dependencies'
// ids, comma-separated) past the source's park_timeout: what the forwarder records once and
// what the reconciler records when the forwarder has not (docs/reconciliation.md, A21).
store::Difference parked_timeout_difference(const Source& source, const store::InboxEvent& event,
                                            const std::string& waiting_for);

class Forwarder {
 public:
  Forwarder(ForwarderOptions options, ForwarderDeps deps);
  ~Forwarder();
  Forwarder(const Forwarder&) = delete;
  Forwarder& operator=(const Forwarder&) = delete;

  Status start();
  void stop();
  // The first half of stop(), without waiting: claiming ends now, forwards in flight may
  // finish until `deadline` (at most stop_grace from now). stop() joins.
  void begin_stop(std::chrono::steady_clock::time_point deadline);
  // New events were stored: claim now rather than at the next poll.
  void wake();

 private:
  struct Completed {
    store::InboxEvent event;
    net::AttemptResult result;
    DecisionInput input;
  };

  void run();
  // One store round trip: writes the queued status changes, claims up to `claim_limit` due
  // events and processes them. True when a full batch was claimed (more may be due).
  bool round(int claim_limit);
  struct Pending;
  void report(const std::vector<Pending>& written,
              const std::vector<Result<store::InboxEvent>>& results);
  void process(store::InboxEvent event);
  DecisionInput decision_input(const Source& source, const store::InboxEvent& event);
  void settle(const Source& source, const store::InboxEvent& event, const DecisionResult& result,
              const DecisionInput& input);
  void park(const Source& source, const store::InboxEvent& event, const DecisionResult& result);
  void send(const Source& source, store::InboxEvent event, DecisionInput input);
  void record(Completed done);
  void mark_dead(const store::InboxEvent& event, const std::string& reason);
  // Queues a status change; the next round() writes every queued one in one transaction.
  void update(store::InboxStatusUpdate u, std::string_view source, std::string_view outcome);
  std::int64_t now_ms();

  const ForwarderOptions options_;
  ForwarderDeps deps_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool running_ = false;
  bool stopping_ = false;
  std::optional<std::chrono::steady_clock::time_point> requested_deadline_;  // begin_stop()
  bool woken_ = false;
  std::deque<Completed> mailbox_;
  std::thread thread_;

  struct Pending {  // a queued status change
    store::InboxStatusUpdate update;
    std::string source;
    std::string outcome;  // metric label; "" = none
    std::string event_id;
  };

  // Owned by the forwarder thread.
  int in_flight_ = 0;
  std::vector<Pending> pending_;
  std::set<std::string> settling_;             // "<source>\n<event id>" settled by pending_
  std::multiset<std::string> keys_in_flight_;  // "<source>\n<business key>"
};

}  // namespace hookd::inbound
