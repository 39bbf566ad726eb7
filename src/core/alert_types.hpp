// The operational alerts hookd raises (SPEC §7, A41): one name per kind of failure a person
// must see. Svix's operational-webhook names where Svix has the event, hookd.* otherwise.
// Pure constants, shared by the config check ([alerts] types), the raising modules and docs.
// Thread-safety: immutable.
#pragma once

#include <array>
#include <string_view>

namespace hookd::alert_types {

// A delivery ended without success (retries exhausted, a permanent 4xx, 401/403, 410).
inline constexpr std::string_view kExhausted = "message.attempt.exhausted";
// The receiver refused hookd's credentials (401/403): dead-lettered at once, someone must act.
inline constexpr std::string_view kCredentialsRefused = "hookd.endpoint.credentials_refused";
// An endpoint was disabled (by a 410 Gone, or by a person through the API).
inline constexpr std::string_view kEndpointDisabled = "endpoint.disabled";
// An endpoint's circuit breaker opened (a trickle of probes only) or closed again.
inline constexpr std::string_view kCircuitOpened = "hookd.circuit.opened";
inline constexpr std::string_view kCircuitClosed = "hookd.circuit.closed";
// The idempotency gateway: a key reused with another request; a call whose outcome is unknown.
inline constexpr std::string_view kIdempotencyMismatch = "hookd.idempotency.mismatch";
inline constexpr std::string_view kUnknownOutcome = "hookd.idempotency.unknown_outcome";
// A reconciliation run found a difference (missing event, stuck entity, other state).
inline constexpr std::string_view kReconcileDifference = "hookd.reconcile.difference";
// An inbound event waited for its dependency longer than park_timeout.
inline constexpr std::string_view kParkedTimeout = "hookd.inbound.parked_timeout";

inline constexpr std::array<std::string_view, 9> kAll = {
    kExhausted,           kCredentialsRefused, kEndpointDisabled,    kCircuitOpened, kCircuitClosed,
    kIdempotencyMismatch, kUnknownOutcome,     kReconcileDifference, kParkedTimeout};

inline constexpr bool is_known(std::string_view type) {
  for (auto known : kAll) {
    if (known == type) return true;
  }
  return false;
}

}  // namespace hookd::alert_types
