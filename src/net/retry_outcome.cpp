// An attempt's result as a retry outcome (see retry_outcome.hpp).
#include "net/retry_outcome.hpp"

#include <string>

namespace hookd::net {

AttemptOutcome outcome_of(const AttemptResult& r) {
  switch (r.error) {
    case TransportError::kNone:
      return AttemptOutcome::response(r.status, std::string(r.header("retry-after").value_or("")));
    case TransportError::kSsrfRefused:
      return AttemptOutcome::address_refused();
    case TransportError::kConnectTimeout:
    case TransportError::kTimeout:
      return AttemptOutcome::timeout();
    default:
      return AttemptOutcome::connection_error();
  }
}

}  // namespace hookd::net
