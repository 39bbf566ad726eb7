// Svix-shaped JSON for what was attempted: EndpointMessageOut (a message with its latest
// delivery's status to one endpoint) and MessageEndpointOut (an endpoint with the message's
// latest delivery there), and Svix's MessageStatus of a delivery. Output only.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "store/attempted.hpp"
#include "store/model.hpp"
#include "store/paging.hpp"

namespace hookd::wire {

// Svix MessageStatus of a delivery: 0 success (delivered), 1 pending, 2 fail (dead,
// discarded), 3 sending (delivering); and its MessageStatusText.
int svix_status(store::DeliveryStatus status);
std::string_view svix_status_text(store::DeliveryStatus status);

// `{data, iterator, prevIterator, done}`; each item the message as message_json plus
// `status`, `statusText` and `nextAttempt` (the due time while pending or sending, else null).
std::string endpoint_message_page_json(const store::Page<store::EndpointMessage>& page,
                                       const store::PageRequest& request);
// Each item the endpoint as to_json(Endpoint) plus `status`, `statusText`, `nextAttempt`.
std::string destination_page_json(const store::Page<store::MessageDestination>& page,
                                  const store::PageRequest& request);

}  // namespace hookd::wire
