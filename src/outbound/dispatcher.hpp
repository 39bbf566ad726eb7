// Dispatcher: hookd's outbound delivery engine (SPEC §3). It leases due deliveries from the
// Store, asks each endpoint's EndpointGate whether it may send (rate limit, concurrency cap,
// circuit breaker) and its application's rate limit (all its endpoints together), signs and sends
// the message through a net::HttpSender, and records every attempt together with the delivery's
// next state (retry at T / delivered / dead-letter / disable the endpoint) in one store call,
// batched.
//
// Threads: start() runs one dispatcher thread (claims, admission, recording); HTTP attempts
// run on the sender's own thread, whose completions are handed back through a queue.
// Thread-safety: start(), stop() are called by the owner (not concurrently with each other);
// wake() and stats() may be called from any thread at any time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/endpoint_gate.hpp"
#include "hookd/env.hpp"
#include "hookd/result.hpp"
#include "hookd/retry.hpp"
#include "net/http_sender.hpp"
#include "outbound/ports.hpp"

namespace hookd::ops {
struct HookdMetrics;
class Logger;
class AlertSink;
}  // namespace hookd::ops

namespace hookd::outbound {

struct DispatcherOptions {
  std::string node_id = "hookd";
  std::string version = "0.1";  // sent as user-agent: hookd/<version>
  std::chrono::milliseconds poll_interval{1000};
  std::chrono::milliseconds lease{60'000};
  int claim_batch = 256;  // deliveries claimed per store round at most
  // Deliveries held by this dispatcher at once (in flight + waiting for their gate).
  int max_held = 2048;
  // Deliveries of one endpoint kept locally while its gate says busy/wait; a claim asks for
  // no more than the known endpoints can take (so a busy or failing endpoint is not churned
  // through the store), and the few over it go back (due overflow_delay later, no attempt
  // counted), so one slow endpoint cannot fill max_held.
  int endpoint_backlog = 512;
  // A gate wait longer than this goes back to the store instead of a local timer.
  std::chrono::milliseconds local_wait_limit{1000};
  // A delivery over endpoint_backlog goes back to the store due this much later.
  std::chrono::milliseconds overflow_delay{250};
  // Endpoint and application records are re-read after this (updates take effect within it).
  std::chrono::milliseconds endpoint_ttl{1000};
  std::chrono::milliseconds connect_timeout{3000};  // when the endpoint sets none
  std::chrono::milliseconds total_timeout{10'000};
  std::size_t body_excerpt_bytes = 4096;         // response body kept in the attempt log
  std::chrono::milliseconds stop_grace{10'000};  // stop(): wait this long for in-flight
  RetryPolicyConfig retry;                       // when the endpoint has no retry policy
  EndpointGateConfig gate;                       // rate.per_second = default rate limit

  std::string lease_owner() const { return node_id + "/dispatcher"; }
};

// The store aggregates the dispatcher uses, besides its rounds.
struct DispatcherDeps {
  store::EndpointStore& endpoints;        // the endpoint cache's reads, disabling on 410
  store::ApplicationStore& applications;  // the applications' rate limits (throttleRate)
  store::DeliveryStore& deliveries;       // release_leases when it stops
  // Where the store rounds go (StoreRounds: straight to Store::dispatch_round).
  RoundCommitter& rounds;
  net::HttpSender& sender;
  Clock& clock;
  Random& random;
  ops::HookdMetrics* metrics = nullptr;  // optional
  ops::Logger* logger = nullptr;         // optional
  // Optional: dead letters, 401/403, a 410's disable, circuits opening and closing.
  ops::AlertSink* alerts = nullptr;
};

// Counters for tests, the console and metrics not in the catalogue.
struct DispatcherStats {
  std::uint64_t claimed = 0;
  std::uint64_t attempts = 0;
  std::uint64_t delivered = 0;
  std::uint64_t retries_scheduled = 0;
  std::uint64_t dead_lettered = 0;
  std::uint64_t alerts = 0;              // 401/403 (dead-letter + alert)
  std::uint64_t endpoints_disabled = 0;  // 410
  std::uint64_t deferred = 0;            // given back to the store without an attempt
  std::uint64_t rounds = 0;              // store round trips (one transaction each)
  std::uint64_t lost_leases = 0;         // kConflict when recording
  std::uint64_t store_errors = 0;
  std::int64_t held = 0;           // deliveries held right now
  std::int64_t in_flight = 0;      // HTTP attempts out right now
  std::int64_t open_circuits = 0;  // endpoints whose circuit is open or half-open (ramping)
};

class Dispatcher {
 public:
  Dispatcher(DispatcherOptions options, DispatcherDeps deps);
  ~Dispatcher();  // stop()
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  // Starts the dispatcher thread. kInvalidArgument for a bad default retry/gate config.
  Status start();
  // Stops claiming, lets in-flight attempts finish (up to stop_grace) and records them,
  // gives back every delivery still held (release_leases). Idempotent.
  void stop();
  // The first half of stop(), without waiting: claiming and sending end now, attempts in
  // flight may finish until `deadline` (at most stop_grace from now); then what finished is
  // recorded and every lease given back. stop() joins. Lets the App's one shutdown grace
  // cover attempts and the HTTP server's drain at the same time.
  void begin_stop(std::chrono::steady_clock::time_point deadline);
  // A publish happened: claim now instead of waiting for the poll interval.
  void wake();

  DispatcherStats stats() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hookd::outbound
