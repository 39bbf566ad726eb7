#include "proxy/proxy_metrics.hpp"

#include <string>

namespace hookd::proxy {

ProxyMetrics::ProxyMetrics(ops::Registry& registry)
    : requests_(registry.counter(std::string(kRequestsMetric),
                                 "Requests through the idempotency gateway by outcome.",
                                 {"proxy", "outcome"})),
      upstream_(registry.histogram(std::string(kUpstreamMetric),
                                   "Duration of one upstream call of the idempotency gateway.",
                                   ops::latency_buckets_seconds(), {"proxy"})) {}

void ProxyMetrics::count(std::string_view proxy, std::string_view outcome) {
  requests_.with({std::string(proxy), std::string(outcome)}).inc();
}

void ProxyMetrics::upstream(std::string_view proxy, std::chrono::microseconds duration) {
  upstream_.with({std::string(proxy)}).observe(static_cast<double>(duration.count()) / 1e6);
}

std::uint64_t ProxyMetrics::value(std::string_view proxy, std::string_view outcome) const {
  return requests_.with({std::string(proxy), std::string(outcome)}).value();
}

}  // namespace hookd::proxy
