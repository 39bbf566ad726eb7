// The HTTP request that forwards one inbox event to the source's app: POST to forward.url
// with the original body, its Content-Type, the kept original headers (forward.headers,
// CloudEvents ce-* attributes), hookd's Standard Webhooks signature (webhook-id = the inbox
// row id, webhook-timestamp, webhook-signature with forward.secret), `Idempotency-Key: <business
// key>` (falls back to "<source>:<event id>"), `X-Hookd-Source` and `X-Hookd-Event-Id`.
// Pure (the time is a parameter). Thread-safety: stateless function.
#pragma once

#include <chrono>
#include <cstdint>

#include "inbound/source.hpp"
#include "net/http_client_types.hpp"
#include "store/model.hpp"

namespace hookd::inbound {

net::OutboundRequest forward_request(const Source& source, const store::InboxEvent& event,
                                     std::int64_t now_unix, std::chrono::milliseconds timeout);

}  // namespace hookd::inbound
