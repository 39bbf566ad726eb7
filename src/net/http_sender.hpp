// HttpSender: the port through which the dispatcher and the inbound forwarder send one HTTP
// attempt, asynchronously, so their tests can swap in a fake. net::HttpClient implements it.
// Thread-safety: implementations must accept send() from any thread.
#pragma once

#include <functional>

#include "net/http_client_types.hpp"

namespace hookd::net {

class HttpSender {
 public:
  using Done = std::function<void(AttemptResult)>;
  virtual ~HttpSender() = default;
  // Sends one request; `done` is called exactly once, possibly on another thread (or at once
  // on the caller's thread when the sender is stopped).
  virtual void send(OutboundRequest request, Done done) = 0;
};

}  // namespace hookd::net
