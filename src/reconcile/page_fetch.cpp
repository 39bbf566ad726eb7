// fetch_page: see page_fetch.hpp.
#include "reconcile/page_fetch.hpp"

#include <algorithm>
#include <future>
#include <memory>

#include "core/crypto.hpp"

namespace hookd::reconcile {

net::AttemptResult fetch_page(net::HttpSender& http, const std::string& url,
                              const std::string& token, std::chrono::milliseconds timeout) {
  net::OutboundRequest request;
  request.method = "GET";
  request.url = url;
  request.headers.emplace_back("Accept", "application/json");
  if (!token.empty()) request.headers.emplace_back("Authorization", "Bearer " + token);
  request.total_timeout = timeout;
  auto promise = std::make_shared<std::promise<net::AttemptResult>>();
  auto answer = promise->get_future();
  http.send(std::move(request),
            [promise](net::AttemptResult result) { promise->set_value(std::move(result)); });
  const auto grace = std::min<std::chrono::milliseconds>(timeout, std::chrono::seconds(2));
  if (answer.wait_for(timeout + grace) != std::future_status::ready) {
    net::AttemptResult late;
    late.error = net::TransportError::kTimeout;
    late.error_detail = "no answer within the page timeout";
    return late;
  }
  return answer.get();
}

store::Evidence evidence_of(const std::string& url, const net::AttemptResult& answer) {
  store::Evidence ev;
  ev.request = "GET " + url;
  if (answer.status != 0) ev.status = answer.status;
  ev.excerpt = answer.body.substr(0, std::min(answer.body.size(), store::kMaxEvidenceExcerpt));
  ev.sha256 = crypto::sha256_hex(answer.body);
  return ev;
}

}  // namespace hookd::reconcile
