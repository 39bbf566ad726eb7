// The SQL both engines share for the AttemptedStore (store/attempted.hpp): the SELECTs of the
// attempted-messages and attempted-destinations lists (conditions written with `?` for
// SelectQuery), their row readers, and the audit documents and rewritten rows of an expunge.
// Thread-safety: constants and pure functions.
#pragma once

#include <optional>
#include <string>

#include "store/attempted.hpp"
#include "store/list_filters.hpp"
#include "store/row_codec.hpp"
#include "store/select_query.hpp"

namespace hookd::store {

// The messages' and endpoints' columns (kMessageColumns, kEndpointColumns) qualified with
// their table name, then the latest delivery's status and next_attempt_at.
const std::string& endpoint_message_select();  // "SELECT ... FROM deliveries d JOIN messages"
const std::string& destination_select();       // "SELECT ... FROM deliveries d JOIN endpoints"
inline constexpr int kEndpointMessageStatusColumn = 10;
inline constexpr int kDestinationStatusColumn = 23;

// Adds the endpoint's latest-delivery-per-message condition and the filter's conditions.
void filter_endpoint_messages(SelectQuery& q, const std::string& endpoint_id,
                              const EndpointMessageFilter& filter, const JsonMembership& json);
// Adds the message's latest-delivery-per-endpoint condition.
void filter_message_destinations(SelectQuery& q, const std::string& msg_id);

// The audit `after` of a message expunge: {"payload":"expunged","discarded":n}.
std::string expunge_state_json(int discarded);
// The audit `before`/`after` of an attempt expunge: {"responseBytes":n}.
std::string attempt_body_state_json(std::size_t bytes);

// `attempt` with its content expunged, and its delivery's last_error afterwards: the new one
// when `current_last_error` quoted this attempt's body, else unchanged.
Attempt expunged_attempt(Attempt attempt);
std::optional<std::string> last_error_after_expunge(
    const Attempt& before, const std::optional<std::string>& current_last_error);

inline constexpr auto read_endpoint_message = [](const RowSource auto& s) {
  return EndpointMessage{
      .message = read_message(s),
      .status = delivery_status_from(s.text(kEndpointMessageStatusColumn))
                    .value_or(DeliveryStatus::kPending),
      .next_attempt_at = s.int64(kEndpointMessageStatusColumn + 1),
  };
};

inline constexpr auto read_destination = [](const RowSource auto& s) {
  return MessageDestination{
      .endpoint = read_endpoint(s),
      .status =
          delivery_status_from(s.text(kDestinationStatusColumn)).value_or(DeliveryStatus::kPending),
      .next_attempt_at = s.int64(kDestinationStatusColumn + 1),
  };
};

}  // namespace hookd::store
