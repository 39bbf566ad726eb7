#include "ops/hookd_metrics.hpp"

#include <limits>
#include <string>

namespace hookd::ops {

namespace n = metric_names;

namespace {

std::string s(std::string_view v) { return std::string(v); }

}  // namespace

HookdMetrics::HookdMetrics(Registry& r)
    : deliveries(
          r.counter(s(n::kDeliveries), "Deliveries by final or interim outcome.", {"outcome"})),
      attempts(r.counter(s(n::kAttempts), "HTTP delivery attempts by result.", {"result"})),
      attempts_per_delivery(r.histogram(s(n::kAttemptsPerDelivery),
                                        "Attempts per finished delivery (retry distribution).",
                                        attempt_buckets())),
      attempt_duration(r.histogram(s(n::kAttemptDuration), "Duration of one delivery attempt.",
                                   latency_buckets_seconds(), {"result"})),
      end_to_end(r.histogram(s(n::kEndToEnd), "Time from publish to successful delivery.",
                             latency_buckets_seconds())),
      open_circuits(
          r.gauge(s(n::kOpenCircuits), "Endpoints whose circuit breaker is open or half-open.")),
      alerts(r.counter(s(n::kAlerts), "Deliveries dead-lettered with an alert (401/403).",
                       {"status"})),
      inbound_events(
          r.counter(s(n::kInboundEvents), "Inbound webhook requests by outcome.", {"outcome"})),
      inbound_rejections(
          r.counter(s(n::kInboundRejections), "Rejected inbound requests by reason.", {"reason"})),
      idempotency(r.counter(s(n::kIdempotency), "API requests with an Idempotency-Key by outcome.",
                            {"outcome"})) {
  // Pre-create the children the console charts so they render as 0 before the first event.
  for (const char* outcome : {"delivered", "retry_scheduled", "dead_lettered", "discarded"}) {
    deliveries.with({outcome});
  }
  open_circuits.get();
  for (const char* status : {"401", "403"}) alerts.with({status});
  for (const char* outcome : {"accepted", "duplicate", "rejected"}) inbound_events.with({outcome});
  for (const char* outcome : {"replayed", "conflict"}) idempotency.with({outcome});
}

void add_store_gauges(Registry& r, StoreGauges g) {
  auto add = [&](std::string_view name, const char* help, std::function<double()> fn) {
    if (fn) r.gauge_callback(s(name), help, std::move(fn));
  };
  add(n::kQueueDepth, "Messages waiting for delivery.", std::move(g.queue_depth));
  add(n::kDeadLetters, "Messages in the dead-letter queue.", std::move(g.dead_letters));
  add(n::kDeadLetterOldestAge, "Age of the oldest dead letter (0 when none).",
      std::move(g.dead_letter_oldest_age));
  add(n::kOldestWaiting,
      "Age of the oldest delivery still waiting, since its message was published (0 when none).",
      std::move(g.oldest_waiting));
  add(n::kInboundOldestWaiting,
      "Age of the oldest inbound event not yet settled, since it was received (0 when none).",
      std::move(g.inbound_oldest_waiting));
  add(n::kStoreCommitFailing,
      "1 while the store cannot commit (a full disk, a read-only file system; /readyz says not "
      "ready), else 0.",
      std::move(g.commit_failing));
}

double delivery_success_ratio(const HookdMetrics& m) {
  double delivered = 0;
  double finished = 0;
  for (const auto& [values, counter] : m.deliveries.children()) {
    const auto v = static_cast<double>(counter->value());
    if (values[0] == "delivered") delivered += v;
    if (values[0] != "retry_scheduled") finished += v;
  }
  return finished > 0 ? delivered / finished : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace hookd::ops
