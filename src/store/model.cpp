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

}  // namespace

std::string_view to_string(DeliveryStatus s) { return name_of(kDelivery, s); }
std::string_view to_string(AttemptTrigger t) { return name_of(kTrigger, t); }
std::string_view to_string(InboxStatus s) { return name_of(kInbox, s); }
std::string_view to_string(IdempotencyState s) { return name_of(kIdem, s); }
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

}  // namespace hookd::store
