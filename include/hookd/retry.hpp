// Retry policy for outbound deliveries: what one attempt's outcome means (delivered, retry
// later, dead-letter, alert, disable the endpoint) and when the next attempt happens.
//
// Defaults follow SPEC §3 "Delivery policy":
//   2xx                                   -> delivered
//   connection error, timeout, 408, 429,
//   5xx, 3xx, 1xx, nonsense status        -> retry (redirects are not followed; a 3xx is a
//                                            failure that may be a transient
//                                            misconfiguration, so it is retried, bounded by
//                                            max attempts/age; override "3xx" to change)
//   other 4xx (400, 404, 422, ...)        -> dead-letter at once
//   401, 403                              -> dead-letter + alert (expired secret/credential)
//   410                                   -> disable the endpoint (and dead-letter)
//   address refused by the SSRF policy    -> dead-letter
// Every status or class ("4xx") can be overridden per endpoint.
//
// Backoff: exponential with jitter, delay = min(base * 2^n, max) * (0.5 + jitter_sample),
// n = attempts_made - 1, jitter_sample in [0, 1) drawn by the caller; or an explicit
// schedule (no jitter). A Retry-After header is honoured as a lower bound on the delay,
// clamped to [min_retry_after, max_retry_after]; unparseable values are ignored.
// Bounded: after max_attempts, or once max_age since the first attempt has passed, the
// delivery is dead-lettered. A retry never goes past the age deadline (the last one is
// moved to the deadline).
// Pure: time and randomness are parameters. Thread-safety: RetryPolicy is immutable after
// create(); share it freely. Free functions are stateless.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hookd/result.hpp"
#include "hookd/time.hpp"

namespace hookd {

// ---- Status classification -------------------------------------------------------------

enum class StatusAction {
  kSuccess,          // delivered
  kRetry,            // try again later (bounded)
  kDeadLetter,       // do not retry; into the dead-letter queue
  kDeadLetterAlert,  // dead-letter and raise an alert (metric + operational event)
  kDisableEndpoint,  // dead-letter and disable the endpoint (410 Gone)
};

// "success", "retry", "dead_letter", "dead_letter_alert", "disable_endpoint".
std::string_view to_string(StatusAction action);
std::optional<StatusAction> parse_status_action(std::string_view name);

// Per-endpoint overrides. An exact status wins over its class; both win over the defaults.
struct StatusOverrides {
  std::map<int, StatusAction> by_status;  // e.g. 404 -> kRetry
  std::map<int, StatusAction> by_class;   // key 1..5 for 1xx..5xx, e.g. 3 -> kDeadLetter

  // Adds one override from config text: selector "404" or "4xx"/"4XX", action as above.
  Status add(std::string_view selector, std::string_view action);
  bool empty() const { return by_status.empty() && by_class.empty(); }
};

// The default classification of a received HTTP status (no overrides).
StatusAction default_status_action(int status);
// With overrides applied.
StatusAction classify_status(int status, const StatusOverrides& overrides);

// ---- Retry-After (RFC 9110 §10.2.3) and HTTP-date (§5.6.7) ---------------------------------

// Parses IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), obsolete RFC 850
// ("Sunday, 06-Nov-94 08:49:37 GMT"; a two-digit year more than 50 years after `now` means
// the previous century) and asctime ("Sun Nov  6 08:49:37 1994"). nullopt if invalid.
std::optional<TimePoint> parse_http_date(std::string_view text, TimePoint now);

// Delay requested by a Retry-After value relative to `now`: delay-seconds (1*DIGIT) or an
// HTTP-date; a date in the past gives 0. nullopt when the value is garbage (including a
// negative number). Huge values saturate rather than overflow.
std::optional<Duration> parse_retry_after(std::string_view value, TimePoint now);

// ---- Policy ------------------------------------------------------------------------------

enum class BackoffKind { kExponential, kSchedule };

struct RetryPolicyConfig {
  BackoffKind backoff = BackoffKind::kExponential;
  Duration base_delay = std::chrono::seconds(10);  // exponential: first retry ~ base
  Duration max_delay = std::chrono::hours(6);      // exponential: cap before jitter
  // kSchedule: schedule[k-1] is the delay after the k-th failed attempt; the schedule
  // also caps the attempts at schedule.size() + 1.
  std::vector<Duration> schedule;
  int max_attempts = 12;                      // including the first attempt
  Duration max_age = std::chrono::hours(72);  // since the first attempt (or publish)
  bool honour_retry_after = true;
  Duration min_retry_after = std::chrono::seconds(1);
  Duration max_retry_after = std::chrono::hours(1);
  StatusOverrides overrides;
};

// Standard Webhooks / Svix delays after the first attempt ("immediately"):
// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts in all).
std::vector<Duration> svix_schedule();

struct AttemptOutcome {
  enum class Kind {
    kResponse,         // an HTTP status was received
    kConnectionError,  // DNS, connect, TLS, reset, truncated response
    kTimeout,          // connect or total timeout
    kAddressRefused,   // the SSRF address policy refused every resolved address
  };
  Kind kind = Kind::kResponse;
  int status = 0;                  // kResponse only
  std::string retry_after_header;  // raw Retry-After value; empty when absent

  static AttemptOutcome response(int status, std::string retry_after = {}) {
    return {Kind::kResponse, status, std::move(retry_after)};
  }
  static AttemptOutcome connection_error() { return {Kind::kConnectionError, 0, {}}; }
  static AttemptOutcome timeout() { return {Kind::kTimeout, 0, {}}; }
  static AttemptOutcome address_refused() { return {Kind::kAddressRefused, 0, {}}; }
};

struct RetryDecision {
  enum class Kind { kDelivered, kRetry, kDeadLetter, kDeadLetterAlert, kDisableEndpoint };
  Kind kind = Kind::kDeadLetter;
  TimePoint retry_at{};  // kRetry only
  std::string reason;    // one line for the attempt log, e.g. "HTTP 503: retry 3 of 12 in 40s"

  bool is_retry() const { return kind == Kind::kRetry; }
  bool is_final() const { return kind != Kind::kRetry; }
};

std::string_view to_string(RetryDecision::Kind kind);

class RetryPolicy {
 public:
  // kInvalidArgument when a parameter is out of range (base <= 0, max < base, empty or
  // negative schedule, max_attempts < 1, max_age <= 0, min_retry_after > max_retry_after).
  static Result<RetryPolicy> create(RetryPolicyConfig config);

  // Decides what follows an attempt. attempts_made counts attempts so far, including this
  // one (>= 1). jitter_sample is uniform in [0, 1), drawn by the caller.
  RetryDecision next(const AttemptOutcome& outcome, int attempts_made, TimePoint first_attempt_at,
                     TimePoint now, double jitter_sample) const;

  // The backoff delay after `attempts_made` failed attempts, before Retry-After and age
  // bounds. Exposed for tests and for showing the schedule.
  Duration backoff_delay(int attempts_made, double jitter_sample) const;

  const RetryPolicyConfig& config() const { return config_; }

 private:
  explicit RetryPolicy(RetryPolicyConfig config) : config_(std::move(config)) {}
  RetryDecision retry_or_give_up(std::string what, const AttemptOutcome& outcome, int attempts_made,
                                 TimePoint first_attempt_at, TimePoint now,
                                 double jitter_sample) const;

  RetryPolicyConfig config_;
};

}  // namespace hookd
