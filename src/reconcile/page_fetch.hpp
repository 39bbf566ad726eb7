// fetch_page: one GET through the HttpSender port, waited for on the caller's thread (the
// reconciler's run thread). The token goes in Authorization: Bearer and never into the
// evidence. Thread-safety: call from any thread; the sender's callback may run anywhere.
#pragma once

#include <chrono>
#include <string>

#include "net/http_sender.hpp"

namespace hookd::reconcile {

// Sends GET `url` and waits for the answer (the sender's total timeout is `timeout`; a
// sender that never answers is given up after twice the timeout, at most timeout + 2 s:
// kTimeout).
net::AttemptResult fetch_page(net::HttpSender& http, const std::string& url,
                              const std::string& token, std::chrono::milliseconds timeout);

}  // namespace hookd::reconcile
