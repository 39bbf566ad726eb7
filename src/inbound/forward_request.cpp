#include "inbound/forward_request.hpp"

namespace hookd::inbound {

net::OutboundRequest forward_request(const Source& source, const store::InboxEvent& event,
                                     std::int64_t now_unix, std::chrono::milliseconds timeout) {
  net::OutboundRequest r;
  r.method = "POST";
  r.url = source.settings.forward.url;
  r.body = event.payload;
  r.total_timeout = timeout;
  const auto type = event.headers.find("content-type");
  r.headers.emplace_back("Content-Type",
                         type != event.headers.end() ? type->second : "application/json");
  for (const auto& [name, value] : event.headers) {
    if (name != "content-type") r.headers.emplace_back(name, value);
  }
  for (auto& h : source.forward_signer.sign({event.id, now_unix, r.body})) {
    r.headers.emplace_back(std::move(h.name), std::move(h.value));
  }
  r.headers.emplace_back("Idempotency-Key",
                         event.business_key.value_or(source.name() + ":" + event.event_id));
  r.headers.emplace_back("X-Hookd-Source", source.name());
  r.headers.emplace_back("X-Hookd-Event-Id", event.event_id);
  return r;
}

}  // namespace hookd::inbound
