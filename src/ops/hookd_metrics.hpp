// The catalogue of hookd's metrics (SPEC §7, A35): one place that names and registers them, so
// every component uses the same names, labels and buckets, and the console knows what to read.
// Components keep references to the children they update (see metrics.hpp); label values are
// the small fixed sets listed next to each family.
// Scrape-time gauges (queue depth, dead letters) need the store, so the application registers
// them with `add_store_gauges`. Only what some code updates is here.
// Thread-safety: as Registry; create once at startup, then share.
#pragma once

#include <functional>
#include <string_view>

#include "ops/metrics.hpp"

namespace hookd::ops {

namespace metric_names {
inline constexpr std::string_view kDeliveries = "hookd_outbound_deliveries_total";
inline constexpr std::string_view kAttempts = "hookd_outbound_attempts_total";
inline constexpr std::string_view kAttemptsPerDelivery = "hookd_outbound_attempts_per_delivery";
inline constexpr std::string_view kAttemptDuration = "hookd_outbound_attempt_duration_seconds";
inline constexpr std::string_view kEndToEnd = "hookd_outbound_end_to_end_seconds";
inline constexpr std::string_view kQueueDepth = "hookd_outbound_queue_depth";
inline constexpr std::string_view kOpenCircuits = "hookd_outbound_open_circuits";
inline constexpr std::string_view kAlerts = "hookd_outbound_alerts_total";
inline constexpr std::string_view kDeadLetters = "hookd_outbound_dead_letters";
inline constexpr std::string_view kDeadLetterOldestAge =
    "hookd_outbound_dead_letter_oldest_age_seconds";
// "Events waiting too long" (SPEC §7): alert on these ages.
inline constexpr std::string_view kOldestWaiting = "hookd_outbound_oldest_waiting_seconds";
inline constexpr std::string_view kInboundOldestWaiting = "hookd_inbound_oldest_waiting_seconds";
inline constexpr std::string_view kStoreCommitFailing = "hookd_store_commit_failing";
inline constexpr std::string_view kInboundEvents = "hookd_inbound_events_total";
inline constexpr std::string_view kInboundRejections = "hookd_inbound_rejections_total";
inline constexpr std::string_view kIdempotency = "hookd_idempotency_requests_total";
}  // namespace metric_names

// Values read from the store on each scrape.
struct StoreGauges {
  std::function<double()> queue_depth{};             // messages waiting for delivery
  std::function<double()> dead_letters{};            // messages in the dead-letter queue
  std::function<double()> dead_letter_oldest_age{};  // seconds; 0 when the queue is empty
  std::function<double()> oldest_waiting{};          // seconds since publish; 0 when none
  std::function<double()> inbound_oldest_waiting{};  // seconds since received; 0 when none
  std::function<double()> commit_failing{};          // 1 while the store cannot commit, else 0
};

struct HookdMetrics {
  explicit HookdMetrics(Registry& registry);

  // outcome: delivered | retry_scheduled | dead_lettered | discarded
  CounterFamily& deliveries;
  // result: success | http_4xx | http_5xx | timeout | network | refused
  CounterFamily& attempts;
  // Attempts a delivery took until it was delivered or dead-lettered (retry distribution).
  HistogramFamily& attempts_per_delivery;
  // One HTTP attempt, connect to last byte; label result as in `attempts`.
  HistogramFamily& attempt_duration;
  // Message published → delivered to an endpoint.
  HistogramFamily& end_to_end;
  // Endpoints whose circuit breaker is open or half-open right now (set by the dispatcher).
  GaugeFamily& open_circuits;
  // Deliveries dead-lettered with an alert; status: 401 | 403 (the receiver refuses our
  // credentials: someone must act).
  CounterFamily& alerts;
  // outcome: accepted | duplicate | rejected
  CounterFamily& inbound_events;
  // reason: signature | timestamp | too_large | malformed | unknown_source | rate_limited
  CounterFamily& inbound_rejections;
  // Requests carrying an Idempotency-Key to the API; outcome: stored | replayed | conflict |
  // in_progress
  CounterFamily& idempotency;
};

void add_store_gauges(Registry& registry, StoreGauges gauges);

// Delivered / (delivered + dead-lettered + discarded) so far; NaN before the first outcome.
double delivery_success_ratio(const HookdMetrics& metrics);

}  // namespace hookd::ops
