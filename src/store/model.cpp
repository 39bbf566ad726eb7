#include "store/model.hpp"

#include <array>
#include <utility>

namespace hookd::store {
namespace {

template <class E, std::size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& table, E v) {
  for (const auto& [e, name] : table) {
    if (e == v) return name;
  }
  return "unknown";
}

template <class E, std::size_t N>
std::optional<E> value_of(const std::array<std::pair<E, std::string_view>, N>& table,
                          std::string_view s) {
  for (const auto& [e, name] : table) {
    if (name == s) return e;
  }
  return std::nullopt;
}

constexpr std::array<std::pair<DeliveryStatus, std::string_view>, 5> kDelivery{{
    {DeliveryStatus::kPending, "pending"},
    {DeliveryStatus::kDelivering, "delivering"},
    {DeliveryStatus::kDelivered, "delivered"},
    {DeliveryStatus::kDead, "dead"},
    {DeliveryStatus::kDiscarded, "discarded"},
}};

constexpr std::array<std::pair<AttemptTrigger, std::string_view>, 2> kTrigger{{
    {AttemptTrigger::kScheduled, "scheduled"},
    {AttemptTrigger::kManual, "manual"},
}};

constexpr std::array<std::pair<InboxStatus, std::string_view>, 9> kInbox{{
    {InboxStatus::kReceived, "received"},
    {InboxStatus::kProcessing, "processing"},
    {InboxStatus::kRetry, "retry"},
    {InboxStatus::kParked, "parked"},
    {InboxStatus::kProcessed, "processed"},
    {InboxStatus::kStale, "stale"},
    {InboxStatus::kSuperseded, "superseded"},
    {InboxStatus::kDead, "dead"},
    {InboxStatus::kDuplicate, "duplicate-business-key"},
}};

constexpr std::array<std::pair<IdempotencyState, std::string_view>, 3> kIdem{{
    {IdempotencyState::kInFlight, "in_flight"},
    {IdempotencyState::kCompleted, "completed"},
    {IdempotencyState::kUnknown, "unknown"},
}};

constexpr std::array<std::pair<ProxyKeyState, std::string_view>, 4> kProxyKey{{
    {ProxyKeyState::kClaimed, "claimed"},
    {ProxyKeyState::kCompleted, "completed"},
    {ProxyKeyState::kNotReplayable, "not_replayable"},
    {ProxyKeyState::kUnknown, "unknown"},
}};

}  // namespace

std::string_view to_string(DeliveryStatus s) { return name_of(kDelivery, s); }
std::string_view to_string(AttemptTrigger t) { return name_of(kTrigger, t); }
std::string_view to_string(InboxStatus s) { return name_of(kInbox, s); }
std::string_view to_string(IdempotencyState s) { return name_of(kIdem, s); }
std::string_view to_string(ProxyKeyState s) { return name_of(kProxyKey, s); }
std::optional<DeliveryStatus> delivery_status_from(std::string_view s) {
  return value_of(kDelivery, s);
}
std::optional<AttemptTrigger> attempt_trigger_from(std::string_view s) {
  return value_of(kTrigger, s);
}
std::optional<InboxStatus> inbox_status_from(std::string_view s) { return value_of(kInbox, s); }
std::optional<IdempotencyState> idempotency_state_from(std::string_view s) {
  return value_of(kIdem, s);
}
std::optional<ProxyKeyState> parse_proxy_key_state(std::string_view text) {
  return value_of(kProxyKey, text);
}

namespace {

// Length of the valid UTF-8 sequence starting at text[i], 0 if invalid or cut off.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t n = 0;
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0 && lead >= 0xC2) n = 2;
  if ((lead & 0xF0) == 0xE0) n = 3;
  if ((lead & 0xF8) == 0xF0 && lead <= 0xF4) n = 4;
  if (n == 0 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

// The first `max_bytes` of a response body on one line: control characters become spaces,
// bytes that are not UTF-8 become '?', runs of spaces collapse.
std::string body_excerpt(std::string_view body, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < body.size() && out.size() < max_bytes;) {
    const std::size_t n = utf8_sequence_length(body, i);
    if (n == 0) {
      out += '?';
      ++i;
      continue;
    }
    if (out.size() + n > max_bytes) break;
    const auto c = static_cast<unsigned char>(body[i]);
    if (n == 1 && (c < 0x20 || c == 0x7F)) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else if (n > 1 || c != ' ' || (!out.empty() && out.back() != ' ')) {
      out.append(body.substr(i, n));
    }
    i += n;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

std::optional<std::string> last_error_of(const Attempt& attempt) {
  if (attempt.error) return attempt.error;
  if (attempt.success || !attempt.response_status) return std::nullopt;
  std::string out = "HTTP " + std::to_string(*attempt.response_status);
  if (auto excerpt = body_excerpt(attempt.response_body, kLastErrorBodyBytes); !excerpt.empty()) {
    out += ": " + excerpt;
  }
  return out;
}

EndpointStats endpoint_stats_of(const std::vector<std::pair<std::string, std::int64_t>>& counts) {
  EndpointStats stats;
  for (const auto& [text, n] : counts) {
    switch (delivery_status_from(text).value_or(DeliveryStatus::kPending)) {
      case DeliveryStatus::kPending:
        stats.pending += n;
        break;
      case DeliveryStatus::kDelivering:
        stats.sending += n;
        break;
      case DeliveryStatus::kDelivered:
        stats.success += n;
        break;
      case DeliveryStatus::kDead:
        stats.fail += n;
        break;
      case DeliveryStatus::kDiscarded:
        stats.canceled += n;
        break;
    }
  }
  return stats;
}

}  // namespace hookd::store
