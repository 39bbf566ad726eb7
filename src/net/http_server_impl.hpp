// Internal to the HTTP server adapter: the server's shared state (HttpServer::Impl) that
// accepts connections and tracks them, and ServerLife, which tells Responders whether the
// io_context may still be posted to. Not part of the public API.
// Thread-safety: Impl's registry is guarded by its mutex; the acceptor is only touched on
// its strand (or before the io threads start); ServerLife is guarded by its own mutex.
#pragma once

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "net/http_server.hpp"

namespace hookd::net {
namespace detail {

// Outlives the server: a Responder called after stop() finds alive == false and drops the
// response instead of posting to a destroyed io_context.
struct ServerLife {
  std::mutex mutex;
  bool alive = true;
};

}  // namespace detail

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, HttpHandler handler);
  ~Impl();

  Status start();
  void stop(std::chrono::milliseconds grace);
  std::uint16_t local_port() const { return port_.load(); }
  std::size_t open_connections() const;

  // For connections (called on their strands).
  const HttpServerOptions& options() const { return options_; }
  const HttpHandler& handler() const { return handler_; }
  const std::shared_ptr<detail::ServerLife>& life() const { return life_; }
  bool stopping() const { return stopping_.load(std::memory_order_acquire); }
  void on_connection_closed(std::uint64_t id);

 private:
  using Tcp = boost::asio::ip::tcp;

  Status open_acceptor();
  void accept_next();
  void on_accept(boost::system::error_code ec, Tcp::socket socket);
  void admit(Tcp::socket socket);
  void run_io_thread();
  std::vector<std::shared_ptr<detail::HttpConnection>> snapshot_connections() const;

  const HttpServerOptions options_;
  const HttpHandler handler_;
  const std::shared_ptr<detail::ServerLife> life_ = std::make_shared<detail::ServerLife>();

  boost::asio::io_context io_;
  Tcp::acceptor acceptor_;  // bound to its own strand
  boost::asio::steady_timer accept_retry_timer_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::vector<std::thread> threads_;

  mutable std::mutex mutex_;
  std::condition_variable drained_;
  std::unordered_map<std::uint64_t, std::shared_ptr<detail::HttpConnection>> connections_;
  std::uint64_t next_connection_id_ = 0;

  std::atomic<bool> stopping_{false};
  std::atomic<std::uint16_t> port_{0};
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace hookd::net
