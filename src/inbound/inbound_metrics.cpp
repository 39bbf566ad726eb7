#include "inbound/inbound_metrics.hpp"

#include <string>

namespace hookd::inbound {
namespace {

// The catalogue's reason labels: signature | timestamp | too_large | malformed |
// unknown_source | rate_limited.
std::string_view catalogue_reason(std::string_view reason) {
  if (reason.starts_with("timestamp")) return "timestamp";
  if (reason == "too_large" || reason == "malformed" || reason == "unknown_source") return reason;
  return "signature";
}

}  // namespace

InboundMetrics::InboundMetrics(ops::Registry& registry, ops::HookdMetrics* catalogue)
    : requests_(registry.counter(std::string(kRequestsMetric),
                                 "Inbound requests by source and outcome (accepted, duplicate, "
                                 "rejected_<reason>, too_large, malformed, unavailable).",
                                 {"source", "outcome"})),
      forwards_(registry.counter(std::string(kForwardsMetric),
                                 "Inbound events settled by the forwarder, by source and outcome.",
                                 {"source", "outcome"})),
      catalogue_(catalogue) {}

void InboundMetrics::accepted(std::string_view source) {
  requests_.with({std::string(source), "accepted"}).inc();
  if (catalogue_ != nullptr) catalogue_->inbound_events.with({"accepted"}).inc();
}

void InboundMetrics::duplicate(std::string_view source) {
  requests_.with({std::string(source), "duplicate"}).inc();
  if (catalogue_ != nullptr) catalogue_->inbound_events.with({"duplicate"}).inc();
}

void InboundMetrics::rejected(std::string_view source, std::string_view reason) {
  const bool own_label = reason == "too_large" || reason == "malformed" ||
                         reason == "unavailable" || reason == "unknown_source";
  requests_
      .with({std::string(source),
             own_label ? std::string(reason) : "rejected_" + std::string(reason)})
      .inc();
  if (catalogue_ == nullptr || reason == "unavailable" || reason == "method") return;
  catalogue_->inbound_events.with({"rejected"}).inc();
  catalogue_->inbound_rejections.with({std::string(catalogue_reason(reason))}).inc();
}

void InboundMetrics::forward(std::string_view source, std::string_view outcome) {
  forwards_.with({std::string(source), std::string(outcome)}).inc();
}

}  // namespace hookd::inbound
