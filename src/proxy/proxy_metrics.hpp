// The idempotency gateway's metrics (SPEC §7): requests by proxy and outcome, and the
// upstream's latency by proxy. The unknown-key gauges read the store at scrape time (the
// composition root registers them, see app/store_gauges).
// outcome: forwarded | replayed | mismatch | in_progress | unknown | not_replayable |
//          not_sent | released | passthrough | rejected | unavailable
// Thread-safety: as the Registry; every method may be called from any thread.
#pragma once

#include <chrono>
#include <string_view>

#include "ops/metrics.hpp"

namespace hookd::proxy {

inline constexpr std::string_view kRequestsMetric = "hookd_proxy_requests_total";
inline constexpr std::string_view kUpstreamMetric = "hookd_proxy_upstream_seconds";
inline constexpr std::string_view kUnknownKeysMetric = "hookd_proxy_unknown_keys";
inline constexpr std::string_view kOldestUnknownMetric = "hookd_proxy_oldest_unknown_seconds";

class ProxyMetrics {
 public:
  explicit ProxyMetrics(ops::Registry& registry);

  void count(std::string_view proxy, std::string_view outcome);
  void upstream(std::string_view proxy, std::chrono::microseconds duration);
  // The value of one outcome's counter (tests, the console).
  std::uint64_t value(std::string_view proxy, std::string_view outcome) const;

 private:
  ops::CounterFamily& requests_;
  ops::HistogramFamily& upstream_;
};

}  // namespace hookd::proxy
