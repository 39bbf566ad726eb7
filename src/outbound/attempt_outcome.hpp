// Reading one HTTP attempt's result for the dispatcher: the metrics label, what it says about
// the endpoint's health (circuit breaker), and the attempt row for the store (the retry
// policy's outcome is net::outcome_of, shared with the forwarder). Pure. Thread-safety:
// stateless.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "core/endpoint_gate.hpp"
#include "hookd/retry.hpp"
#include "net/http_client_types.hpp"
#include "net/retry_outcome.hpp"
#include "store/model.hpp"
#include "store/store.hpp"

namespace hookd::outbound {

// success | http_4xx | http_5xx | timeout | network | refused (the catalogue's labels).
std::string_view metric_result(const net::AttemptResult& result);

// Failures that say the endpoint is unwell (timeouts, connection errors, 408/429/5xx) open
// the circuit; answers it chose (2xx, other 4xx) are healthy; SSRF refusals say nothing.
EndpointHealth health_of(const net::AttemptResult& result);

// The delay a response's Retry-After asks for (seconds or HTTP-date, relative to `now`);
// nullopt without a response, without the header, or when it is garbage.
std::optional<Duration> retry_after_of(const net::AttemptResult& result, TimePoint now);

// The store's next state for a decision.
store::AttemptReport::Next next_state(RetryDecision::Kind kind);

// The attempt row (ids are filled in by the store).
store::Attempt attempt_row(const net::AttemptResult& result, const std::string& url,
                           TimePoint started, std::size_t body_limit);

}  // namespace hookd::outbound
