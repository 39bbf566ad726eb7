// HttpClientSender: net::HttpClient behind the dispatcher's HttpSender port.
#include "outbound/ports.hpp"

#include <utility>

#include "net/http_client.hpp"

namespace hookd::outbound {

void HttpClientSender::send(net::OutboundRequest request, Done done) {
  client_.send(std::move(request), std::move(done));
}

}  // namespace hookd::outbound
