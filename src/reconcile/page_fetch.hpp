// fetch_page: one GET through the HttpSender port, waited for on the caller's thread (the
// reconciler's run thread). The token goes in Authorization: Bearer and never into the
// evidence; evidence_of is what a difference keeps of the exchange. Thread-safety: call from any
// thread; the sender's callback may run anywhere.
#pragma once

#include <chrono>
#include <string>

#include "net/http_sender.hpp"
#include "store/reconcile.hpp"

namespace hookd::reconcile {

// Sends GET `url` and waits for the answer (the sender's total timeout is `timeout`; a
// sender that never answers is given up after twice the timeout, at most timeout + 2 s:
// kTimeout).
net::AttemptResult fetch_page(net::HttpSender& http, const std::string& url,
                              const std::string& token, std::chrono::milliseconds timeout);

// What a difference keeps of one GET: "GET <url>" (no token), the status when there was an
// answer, the first kMaxEvidenceExcerpt bytes and the SHA-256 of the whole body.
store::Evidence evidence_of(const std::string& url, const net::AttemptResult& answer);

}  // namespace hookd::reconcile
