// The inbound gateway's metrics: requests by source and outcome (accepted, duplicate,
// rejected_<reason>, too_large, malformed, unavailable), forwards by source and outcome
// (forwarded, retry, dead, stale, superseded, parked, park_timeout, duplicate_business_key),
// and the catalogue's source-less totals (hookd_inbound_events_total,
// hookd_inbound_rejections_total) when a HookdMetrics is given.
// Thread-safety: as the Registry; every method may be called from any thread.
#pragma once

#include <string_view>

#include "ops/hookd_metrics.hpp"
#include "ops/metrics.hpp"

namespace hookd::inbound {

inline constexpr std::string_view kRequestsMetric = "hookd_inbound_requests_total";
inline constexpr std::string_view kForwardsMetric = "hookd_inbound_forwards_total";

class InboundMetrics {
 public:
  // `catalogue` may be null.
  InboundMetrics(ops::Registry& registry, ops::HookdMetrics* catalogue);

  void accepted(std::string_view source);
  void duplicate(std::string_view source);
  // reason: a verification reason code, "unknown_source", "too_large", "malformed",
  // "unavailable" (database), "method".
  void rejected(std::string_view source, std::string_view reason);
  void forward(std::string_view source, std::string_view outcome);

 private:
  ops::CounterFamily& requests_;
  ops::CounterFamily& forwards_;
  ops::HookdMetrics* catalogue_;
};

}  // namespace hookd::inbound
