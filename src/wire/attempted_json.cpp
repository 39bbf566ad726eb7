#include "wire/attempted_json.hpp"

#include "wire/json.hpp"
#include "wire/time.hpp"

namespace hookd::wire {
namespace {

bool will_be_attempted(store::DeliveryStatus status) {
  return status == store::DeliveryStatus::kPending || status == store::DeliveryStatus::kDelivering;
}

// `status`, `statusText`, `nextAttempt` appended to the object text `out`.
void append_delivery_state(std::string& out, store::DeliveryStatus status, store::Millis next) {
  append_member(out, "status", std::to_string(svix_status(status)));
  append_member(out, "statusText", dump(std::string(svix_status_text(status))));
  append_member(out, "nextAttempt", will_be_attempted(status) ? dump(format_time(next)) : "null");
}

template <class T, class Render>
std::string page_of(const store::Page<T>& page, const store::PageRequest& request, Render render) {
  std::string data = "[";
  for (const auto& item : page.data) {
    if (data.size() > 1) data += ',';
    data += render(item);
  }
  data += ']';
  std::string out = dump(page_fields(page.iterator, page.done, request));
  append_member(out, "data", data);
  return out;
}

}  // namespace

int svix_status(store::DeliveryStatus status) {
  switch (status) {
    case store::DeliveryStatus::kDelivered:
      return 0;
    case store::DeliveryStatus::kPending:
      return 1;
    case store::DeliveryStatus::kDelivering:
      return 3;
    case store::DeliveryStatus::kDead:
    case store::DeliveryStatus::kDiscarded:
      return 2;
  }
  return 2;
}

std::string_view svix_status_text(store::DeliveryStatus status) {
  switch (svix_status(status)) {
    case 0:
      return "success";
    case 1:
      return "pending";
    case 3:
      return "sending";
    default:
      return "fail";
  }
}

std::string endpoint_message_page_json(const store::Page<store::EndpointMessage>& page,
                                       const store::PageRequest& request) {
  return page_of(page, request, [](const store::EndpointMessage& m) {
    std::string out = message_json(m.message);
    append_delivery_state(out, m.status, m.next_attempt_at);
    return out;
  });
}

std::string destination_page_json(const store::Page<store::MessageDestination>& page,
                                  const store::PageRequest& request) {
  return page_of(page, request, [](const store::MessageDestination& d) {
    std::string out = dump(to_json(d.endpoint));
    append_delivery_state(out, d.status, d.next_attempt_at);
    return out;
  });
}

}  // namespace hookd::wire
