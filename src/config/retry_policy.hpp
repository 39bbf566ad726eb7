// The core's RetryPolicyConfig from a [delivery.retry]-shaped configuration table (used by
// the outbound dispatcher's defaults and by each inbound source's forwarding policy).
// Thread-safety: a pure function.
#pragma once

#include "config/config.hpp"
#include "hookd/retry.hpp"

namespace hookd::config {

RetryPolicyConfig retry_policy_config(const RetryConfig& retry);

}  // namespace hookd::config
