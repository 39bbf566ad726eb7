// HttpClient: hookd's outbound HTTP client (webhook deliveries, forwards, status checks), the
// HttpSender (http_sender.hpp) of the dispatcher and the forwarder.
// One background thread drives one libcurl multi handle, so all requests share one
// connection pool with keep-alive. Policy lives elsewhere: the client never follows
// redirects (a 3xx is just a status) and never retries (one send() = at most one request
// on the wire — libcurl's silent resend on a reused dead connection is refused, see
// http_client_transfer.cpp), never uses proxies from the environment, speaks only
// http/https (HTTP/1.1), and checks every resolved address with the AddressGuard (SSRF)
// before connecting.
//
// Thread-safety: send() may be called from any thread, also from inside a `done` callback.
// start() and stop() are called by the owner (not concurrently with each other, not from a
// `done` callback). `done` is called exactly once per send(): on the client's thread with
// the attempt's result, or with kCancelled when stop() ends the attempt early; when the
// client is not running (before start(), after stop()), send() calls it at once on the
// caller's thread (so don't call send() while holding a lock `done` takes). Keep `done`
// short: it blocks the client's thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "net/http_client_types.hpp"
#include "net/http_sender.hpp"

namespace hookd::net {

struct HttpClientOptions {
  std::chrono::milliseconds connect_timeout{3000};
  std::chrono::milliseconds total_timeout{10000};
  std::size_t body_limit = 4096;  // response body bytes kept per attempt
  // Response bytes read past body_limit before the transfer is cut (the connection is
  // then closed instead of reused); bounds what a hostile endpoint can make us read.
  std::size_t drain_limit = 64 * 1024;
  long max_host_connections = 32;    // concurrent connections per host (0 = unlimited)
  long max_total_connections = 512;  // concurrent connections overall (0 = unlimited)
  long max_idle_connections = 256;   // connection cache size of the multi handle
  // Transfers handed to libcurl at once; more wait in the client's FIFO queue (their total
  // timeout runs from send()). Callers bound per-endpoint concurrency themselves (the
  // dispatcher does), so one slow endpoint cannot fill this.
  long max_active_transfers = 512;
  // Idle connections older than this are not reused. Kept below common server keep-alive
  // timeouts (Node: 5 s) so we rarely send on a connection the server is closing.
  std::chrono::seconds max_idle_age{4};
  std::string user_agent = "hookd/0.1";
  // Where spooled response bodies go (OutboundRequest::spool_response_above); "" = $TMPDIR
  // or /tmp.
  std::string spool_dir{};
  AddressGuard address_guard;                // empty = every address allowed
  const char* thread_name = "hookd-client";  // of the transfer thread (15 characters at most)
  int nice = 0;  // the transfer thread's nice level (see lower_this_thread_priority)
};

class HttpClient final : public HttpSender {
 public:
  explicit HttpClient(HttpClientOptions options = {});
  ~HttpClient() override;  // stops the client
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Starts the client's thread. Only the first call does anything (no restart after stop).
  void start();
  // Cancels queued and in-flight attempts (their `done` gets kCancelled), then joins the
  // thread. Idempotent. After stop(), send() cancels immediately.
  void stop();

  // Queues one attempt; `done` is called exactly once (see the thread-safety note above).
  void send(OutboundRequest request, Done done) override;

  // Attempts queued or in flight right now (for metrics and tests).
  std::size_t in_flight() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hookd::net
