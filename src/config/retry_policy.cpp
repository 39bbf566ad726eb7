#include "config/retry_policy.hpp"

namespace hookd::config {

RetryPolicyConfig retry_policy_config(const RetryConfig& r) {
  RetryPolicyConfig c;
  c.max_attempts = r.max_attempts;
  c.max_age = r.max_age;
  c.base_delay = r.backoff_base;
  c.max_delay = r.backoff_max;
  if (!r.schedule.empty()) {
    c.backoff = BackoffKind::kSchedule;
    c.schedule = r.schedule;
    // The config's schedule repeats its last delay; RetryPolicy caps attempts at its length
    // + 1, so pad it up to max_attempts.
    while (static_cast<int>(c.schedule.size()) + 1 < c.max_attempts) {
      c.schedule.push_back(c.schedule.back());
    }
  }
  return c;
}

}  // namespace hookd::config
