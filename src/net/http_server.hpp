// HttpServer: hookd's HTTP/1.1 server adapter (Boost.Beast over Asio). It accepts
// connections, parses requests within limits, hands each request to an asynchronous
// handler and writes the handler's response; bad input is answered with a problem+json
// error (400/413/414/431) and the connection closed, without affecting other connections.
//
// Threading model: `io_threads` threads run one io_context. Each connection lives on its
// own strand and processes one request at a time: the next request is read only after the
// previous response was written, so pipelined requests are answered in order.
//
// Thread-safety:
// - start()/stop()/local_port() may be called from any thread, but not concurrently with
//   each other and never from inside a handler (stop() joins the io threads).
// - The handler is called on an io thread, for different connections concurrently; it must
//   not block (hand slow work elsewhere and answer later through the Responder).
// - A Responder may be called from any thread, exactly once. Calling it after the server
//   stopped or the connection closed is harmless (the response is dropped).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "hookd/result.hpp"
#include "net/http_types.hpp"

namespace hookd::net {

struct HttpServerOptions {
  std::string listen_address = "127.0.0.1";
  std::uint16_t port = 0;  // 0 picks a free port; see HttpServer::local_port()
  int io_threads = 2;
  std::size_t max_header_bytes = 16 * 1024;  // request line + headers; above → 431
  std::size_t max_body_bytes = 1024 * 1024;  // above → 413
  std::size_t max_target_bytes = 8 * 1024;   // above → 414
  std::size_t max_connections = 1024;        // further connections get 503 and are closed
  // From accepting a connection (or from the first byte of a later request) to the request's
  // last byte; slow clients and slowloris are closed when it passes.
  std::chrono::milliseconds request_read_timeout{10'000};
  // Waiting for the next request on a kept-alive connection → close.
  std::chrono::milliseconds idle_timeout{60'000};
  // Writing a response to a client that does not read → close.
  std::chrono::milliseconds write_timeout{10'000};
  int listen_backlog = 1024;
  // Requests whose target starts with `spool_prefix` ("" = none; hookd uses "/proxy/") may
  // have bodies up to `spool_max_body_bytes` instead of max_body_bytes; bytes beyond
  // `spool_memory_bytes` go to an unlinked temporary file in `spool_dir` ("" = $TMPDIR or
  // /tmp) and arrive as HttpRequest::spooled. Other requests are unaffected.
  std::string spool_prefix{};
  std::size_t spool_max_body_bytes = 64 * 1024 * 1024;  // above → 413
  std::size_t spool_memory_bytes = 64 * 1024;
  std::string spool_dir{};
};

namespace detail {
class HttpConnection;
struct ServerLife;
}  // namespace detail

// Answers one request. Move-only; call it exactly once, from any thread. If it is
// destroyed without being called, the client gets a 500 problem response.
class Responder {
 public:
  Responder() = default;
  Responder(std::weak_ptr<detail::HttpConnection> connection,
            std::shared_ptr<detail::ServerLife> life);
  Responder(Responder&& other) noexcept = default;
  Responder& operator=(Responder&& other) noexcept;
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;
  ~Responder();

  void operator()(HttpResponse response);
  // True until the response was sent (or handed over).
  bool pending() const { return life_ != nullptr; }

 private:
  std::weak_ptr<detail::HttpConnection> connection_;
  std::shared_ptr<detail::ServerLife> life_;
};

using HttpHandler = std::function<void(HttpRequest request, Responder respond)>;

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, HttpHandler handler);
  ~HttpServer();  // stop()s with the configured grace period if still running
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, listens and starts the io threads. Bind/listen failures are returned as values.
  // A server is started at most once.
  Status start();

  // Graceful stop: stops accepting, closes idle connections, lets in-flight requests finish
  // (their responses carry "Connection: close") for up to `grace`, then closes the rest and
  // joins the io threads. Idempotent.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(5'000));

  // The bound port (useful with port 0); 0 before start().
  std::uint16_t local_port() const;

  // Connections currently open (for metrics and tests).
  std::size_t open_connections() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace hookd::net
