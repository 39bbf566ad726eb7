// What a publish writes, the same on every backend: the message row, which of the
// application's enabled endpoints it goes to (Svix filter semantics), and the delivery row
// created for each. Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/model.hpp"
#include "store/store.hpp"

namespace hookd::store {

// An enabled endpoint as the router sees it.
struct EndpointRoute {
  std::string id;
  std::optional<std::vector<std::string>> filter_types;
  std::optional<std::vector<std::string>> channels;
};

// Only `msg.only_endpoint` when it is set. No filter = every event type; an endpoint with channels
// only receives messages carrying at least one of them.
bool routes_to(const EndpointRoute& ep, const NewMessage& msg);
// The same rule for a stored message (replay-missing).
bool routes_to(const EndpointRoute& ep, const Message& msg);

// The message row of `in` (no sequence yet: an ordering key's is assigned after the insert).
Message new_message(const NewMessage& in, std::string id, Millis now);

// The `pending` delivery of `msg` to `endpoint_id`, due at `now`.
Delivery new_delivery(const Message& msg, const std::string& endpoint_id, std::string id,
                      Millis now);

}  // namespace hookd::store
