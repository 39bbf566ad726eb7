// RetryPolicy: turns one attempt's outcome into the next step (see hookd/retry.hpp).
#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

#include "hookd/retry.hpp"

namespace hookd {
namespace {

using namespace std::chrono;

Status invalid(std::string message) {
  return fail(ErrorCode::kInvalidArgument, "retry policy: " + std::move(message));
}

// "40s", "5m", "2h", "1500ms": short, for the attempt log.
std::string describe(Duration d) {
  const auto ms = d.count();
  if (ms % 3'600'000 == 0 && ms != 0) return std::to_string(ms / 3'600'000) + "h";
  if (ms % 60'000 == 0 && ms != 0) return std::to_string(ms / 60'000) + "m";
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + "s";
  return std::to_string(ms) + "ms";
}

std::string describe(const AttemptOutcome& outcome) {
  switch (outcome.kind) {
    case AttemptOutcome::Kind::kResponse:
      return "HTTP " + std::to_string(outcome.status);
    case AttemptOutcome::Kind::kConnectionError:
      return "connection error";
    case AttemptOutcome::Kind::kTimeout:
      return "timeout";
    case AttemptOutcome::Kind::kAddressRefused:
      return "address refused by SSRF policy";
  }
  return "unknown outcome";
}

RetryDecision final_decision(RetryDecision::Kind kind, std::string reason) {
  return RetryDecision{.kind = kind, .retry_at = {}, .reason = std::move(reason)};
}

}  // namespace

std::string_view to_string(RetryDecision::Kind kind) {
  switch (kind) {
    case RetryDecision::Kind::kDelivered:
      return "delivered";
    case RetryDecision::Kind::kRetry:
      return "retry";
    case RetryDecision::Kind::kDeadLetter:
      return "dead_letter";
    case RetryDecision::Kind::kDeadLetterAlert:
      return "dead_letter_alert";
    case RetryDecision::Kind::kDisableEndpoint:
      return "disable_endpoint";
  }
  return "unknown";
}

std::vector<Duration> svix_schedule() {
  return {seconds(5), minutes(5), minutes(30), hours(2), hours(5), hours(10), hours(10)};
}

Result<RetryPolicy> RetryPolicy::create(RetryPolicyConfig config) {
  Status status;
  if (config.backoff == BackoffKind::kExponential) {
    if (config.base_delay <= Duration{0})
      status = invalid("base delay must be > 0");
    else if (config.max_delay < config.base_delay)
      status = invalid("max delay must be >= base");
  } else {
    if (config.schedule.empty()) status = invalid("schedule must not be empty");
    for (auto delay : config.schedule) {
      if (delay < Duration{0}) status = invalid("schedule delays must be >= 0");
    }
  }
  if (config.max_attempts < 1) status = invalid("max attempts must be >= 1");
  if (config.max_age <= Duration{0}) status = invalid("max age must be > 0");
  if (config.min_retry_after < Duration{0} || config.max_retry_after < config.min_retry_after) {
    status = invalid("Retry-After bounds must satisfy 0 <= min <= max");
  }
  if (!status) return std::unexpected(status.error());
  return RetryPolicy(std::move(config));
}

Duration RetryPolicy::backoff_delay(int attempts_made, double jitter_sample) const {
  assert(attempts_made >= 1);
  if (config_.backoff == BackoffKind::kSchedule) {
    const auto index = static_cast<std::size_t>(attempts_made - 1);
    return config_.schedule[std::min(index, config_.schedule.size() - 1)];
  }
  assert(jitter_sample >= 0.0 && jitter_sample < 1.0);
  jitter_sample = std::clamp(jitter_sample, 0.0, 1.0);
  // base * 2^n computed in double so a large n saturates at max instead of overflowing.
  const double exponential =
      static_cast<double>(config_.base_delay.count()) * std::exp2(attempts_made - 1);
  const double capped = std::min(exponential, static_cast<double>(config_.max_delay.count()));
  return Duration{static_cast<Duration::rep>(std::llround(capped * (0.5 + jitter_sample)))};
}

RetryDecision RetryPolicy::next(const AttemptOutcome& outcome, int attempts_made,
                                TimePoint first_attempt_at, TimePoint now,
                                double jitter_sample) const {
  assert(attempts_made >= 1);
  std::string what = describe(outcome);
  StatusAction action = StatusAction::kRetry;
  if (outcome.kind == AttemptOutcome::Kind::kResponse) {
    action = classify_status(outcome.status, config_.overrides);
  } else if (outcome.kind == AttemptOutcome::Kind::kAddressRefused) {
    action = StatusAction::kDeadLetter;
  }
  using K = RetryDecision::Kind;
  switch (action) {
    case StatusAction::kSuccess:
      return final_decision(K::kDelivered, what + ": delivered");
    case StatusAction::kDeadLetter:
      return final_decision(K::kDeadLetter, what + ": not retryable, dead-lettered");
    case StatusAction::kDeadLetterAlert:
      return final_decision(K::kDeadLetterAlert,
                            what + ": not retryable (credentials?), dead-lettered, alert raised");
    case StatusAction::kDisableEndpoint:
      return final_decision(K::kDisableEndpoint,
                            what + ": endpoint gone, endpoint disabled, dead-lettered");
    case StatusAction::kRetry:
      break;
  }
  return retry_or_give_up(std::move(what), outcome, attempts_made, first_attempt_at, now,
                          jitter_sample);
}

RetryDecision RetryPolicy::retry_or_give_up(std::string what, const AttemptOutcome& outcome,
                                            int attempts_made, TimePoint first_attempt_at,
                                            TimePoint now, double jitter_sample) const {
  using K = RetryDecision::Kind;
  int max_attempts = config_.max_attempts;
  if (config_.backoff == BackoffKind::kSchedule) {
    max_attempts = std::min<int>(max_attempts, static_cast<int>(config_.schedule.size()) + 1);
  }
  if (attempts_made >= max_attempts) {
    return final_decision(K::kDeadLetter, what + ": max attempts (" + std::to_string(max_attempts) +
                                              ") reached, dead-lettered");
  }
  const TimePoint deadline = first_attempt_at + config_.max_age;
  if (now >= deadline) {
    return final_decision(K::kDeadLetter, what + ": max age (" + describe(config_.max_age) +
                                              ") reached, dead-lettered");
  }
  Duration delay = backoff_delay(attempts_made, jitter_sample);
  std::string note;
  if (config_.honour_retry_after && !outcome.retry_after_header.empty()) {
    if (const auto asked = parse_retry_after(outcome.retry_after_header, now)) {
      const Duration bounded = std::clamp(*asked, config_.min_retry_after, config_.max_retry_after);
      if (bounded > delay) {
        delay = bounded;
        note = " (Retry-After)";
      }
    } else {
      note = " (invalid Retry-After ignored)";
    }
  }
  TimePoint retry_at = now + delay;
  if (retry_at > deadline) {
    retry_at = deadline;
    note += " (moved to max age)";
  }
  RetryDecision decision;
  decision.kind = K::kRetry;
  decision.retry_at = retry_at;
  decision.reason = what + ": retry " + std::to_string(attempts_made + 1) + " of " +
                    std::to_string(max_attempts) + " in " + describe(retry_at - now) + note;
  return decision;
}

}  // namespace hookd
