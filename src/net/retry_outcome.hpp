// What one HTTP attempt's result is to a RetryPolicy (hookd/retry.hpp): a status with its
// Retry-After, a timeout, a connection error or an address refused by the SSRF guard. Used
// by the dispatcher and the inbound forwarder alike. Pure. Thread-safety: stateless.
#pragma once

#include "hookd/retry.hpp"
#include "net/http_client_types.hpp"

namespace hookd::net {

AttemptOutcome outcome_of(const AttemptResult& result);

}  // namespace hookd::net
