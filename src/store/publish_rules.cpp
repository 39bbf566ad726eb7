#include "store/publish_rules.hpp"

#include <algorithm>

namespace hookd::store {
namespace {

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace

namespace {

bool routes(const EndpointRoute& ep, const std::string& event_type,
            const std::optional<std::vector<std::string>>& channels) {
  if (ep.filter_types && !ep.filter_types->empty() && !contains(*ep.filter_types, event_type)) {
    return false;
  }
  if (!ep.channels || ep.channels->empty()) return true;
  if (!channels) return false;
  return std::any_of(channels->begin(), channels->end(),
                     [&](const std::string& ch) { return contains(*ep.channels, ch); });
}

}  // namespace

bool routes_to(const EndpointRoute& ep, const NewMessage& msg) {
  if (msg.only_endpoint && *msg.only_endpoint != ep.id) return false;
  return routes(ep, msg.event_type, msg.channels);
}

bool routes_to(const EndpointRoute& ep, const Message& msg) {
  return routes(ep, msg.event_type, msg.channels);
}

Message new_message(const NewMessage& in, std::string id, Millis now) {
  return Message{
      .id = std::move(id),
      .app_id = in.app_id,
      .event_type = in.event_type,
      .event_id = in.event_id,
      .channels = in.channels,
      .payload = in.payload,
      .ordering_key = in.ordering_key,
      .sequence = std::nullopt,
      .created_at = now,
      .tags = in.tags,
  };
}

Delivery new_delivery(const Message& msg, const std::string& endpoint_id, std::string id,
                      Millis now) {
  Delivery d;
  d.id = std::move(id);
  d.msg_id = msg.id;
  d.endpoint_id = endpoint_id;
  d.app_id = msg.app_id;
  d.next_attempt_at = now;
  d.ordering_key = msg.ordering_key;
  d.sequence = msg.sequence;
  d.created_at = d.updated_at = now;
  return d;
}

}  // namespace hookd::store
