// HttpServer: acceptor, io threads, connection registry and the graceful stop; Responder.
#include "net/http_server.hpp"
#include "hookd/threads.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/asio/write.hpp>
#include <exception>

#include "net/http_server_connection.hpp"
#include "net/http_server_impl.hpp"

namespace hookd::net {
namespace asio = boost::asio;

namespace {

// Sent without ceremony to connections beyond max_connections.
const std::string& overloaded_response() {
  static const std::string bytes = [] {
    auto problem = problem_response(503, "too many open connections");
    return "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\n"
           "Connection: close\r\nRetry-After: 1\r\nContent-Length: " +
           std::to_string(problem.body.size()) + "\r\n\r\n" + problem.body;
  }();
  return bytes;
}

constexpr std::chrono::milliseconds kAcceptRetryDelay{50};

}  // namespace

// ---- Responder -------------------------------------------------------------------------

Responder::Responder(std::weak_ptr<detail::HttpConnection> connection,
                     std::shared_ptr<detail::ServerLife> life)
    : connection_(std::move(connection)), life_(std::move(life)) {}

Responder& Responder::operator=(Responder&& other) noexcept {
  if (this != &other) {
    if (pending()) (*this)(problem_response(500, "the handler dropped the request"));
    connection_ = std::move(other.connection_);
    life_ = std::move(other.life_);
  }
  return *this;
}

Responder::~Responder() {
  if (pending()) (*this)(problem_response(500, "the handler dropped the request"));
}

void Responder::operator()(HttpResponse response) {
  auto life = std::move(life_);
  if (!life) return;  // already answered: a bug in the caller, but never a crash
  std::lock_guard lock(life->mutex);
  if (!life->alive) return;
  auto connection = connection_.lock();
  if (!connection) return;
  asio::post(connection->executor(), [connection, response = std::move(response)]() mutable {
    connection->respond(std::move(response));
  });
}

// ---- HttpServer ------------------------------------------------------------------------

HttpServer::HttpServer(HttpServerOptions options, HttpHandler handler)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handler))) {}

HttpServer::~HttpServer() = default;

Status HttpServer::start() { return impl_->start(); }
void HttpServer::stop(std::chrono::milliseconds grace) { impl_->stop(grace); }
std::uint16_t HttpServer::local_port() const { return impl_->local_port(); }
std::size_t HttpServer::open_connections() const { return impl_->open_connections(); }

// ---- HttpServer::Impl ------------------------------------------------------------------

HttpServer::Impl::Impl(HttpServerOptions options, HttpHandler handler)
    : options_(std::move(options)),
      handler_(std::move(handler)),
      acceptor_(asio::make_strand(io_)),
      accept_retry_timer_(acceptor_.get_executor()) {}

HttpServer::Impl::~Impl() { stop(std::chrono::milliseconds(5'000)); }

Status HttpServer::Impl::start() {
  if (started_) return fail(ErrorCode::kConflict, "http server: already started");
  if (options_.io_threads < 1) {
    return fail(ErrorCode::kInvalidArgument, "http server: io_threads must be at least 1");
  }
  if (auto opened = open_acceptor(); !opened) return opened;
  started_ = true;
  work_.emplace(io_.get_executor());
  accept_next();  // no io thread runs yet, so touching the acceptor here is safe
  threads_.reserve(static_cast<std::size_t>(options_.io_threads));
  for (int i = 0; i < options_.io_threads; ++i) threads_.emplace_back([this] { run_io_thread(); });
  return {};
}

Status HttpServer::Impl::open_acceptor() {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(options_.listen_address, ec);
  if (ec) {
    return fail(ErrorCode::kInvalidArgument,
                "http server: invalid listen address '" + options_.listen_address + "'");
  }
  Tcp::endpoint endpoint(address, options_.port);
  std::string where = options_.listen_address + ":" + std::to_string(options_.port);
  auto failed = [&](std::string_view step) {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    return fail(ErrorCode::kUnavailable,
                "http server: " + std::string(step) + " " + where + ": " + ec.message());
  };
  if (acceptor_.open(endpoint.protocol(), ec); ec) return failed("open");
  if (acceptor_.set_option(asio::socket_base::reuse_address(true), ec); ec) return failed("set");
  if (acceptor_.bind(endpoint, ec); ec) return failed("bind");
  if (acceptor_.listen(options_.listen_backlog, ec); ec) return failed("listen");
  auto local = acceptor_.local_endpoint(ec);
  if (ec) return failed("query");
  port_.store(local.port());
  return {};
}

void HttpServer::Impl::run_io_thread() {
  name_this_thread("hookd-http");
  for (;;) {
    try {
      io_.run();
      return;
    } catch (const std::exception&) {
      // A handler threw; keep serving the other connections.
    }
  }
}

void HttpServer::Impl::accept_next() {
  acceptor_.async_accept(asio::make_strand(io_),
                         [this](boost::system::error_code ec, Tcp::socket socket) {
                           on_accept(ec, std::move(socket));
                         });
}

void HttpServer::Impl::on_accept(boost::system::error_code ec, Tcp::socket socket) {
  if (!acceptor_.is_open() || ec == asio::error::operation_aborted) return;
  if (ec) {
    // e.g. out of file descriptors: back off briefly instead of spinning.
    accept_retry_timer_.expires_after(kAcceptRetryDelay);
    accept_retry_timer_.async_wait([this](boost::system::error_code wait_ec) {
      if (!wait_ec && acceptor_.is_open()) accept_next();
    });
    return;
  }
  admit(std::move(socket));
  accept_next();
}

void HttpServer::Impl::admit(Tcp::socket socket) {
  std::shared_ptr<detail::HttpConnection> connection;
  {
    std::lock_guard lock(mutex_);
    if (stopping_.load() || connections_.size() >= options_.max_connections) {
      boost::system::error_code ignored;
      if (!stopping_.load()) {
        socket.non_blocking(true, ignored);
        socket.write_some(asio::buffer(overloaded_response()), ignored);
      }
      socket.shutdown(Tcp::socket::shutdown_both, ignored);
      socket.close(ignored);
      return;
    }
    auto id = next_connection_id_++;
    connection = std::make_shared<detail::HttpConnection>(std::move(socket), *this, id);
    connections_.emplace(id, connection);
  }
  asio::post(connection->executor(), [connection] { connection->start(); });
}

void HttpServer::Impl::on_connection_closed(std::uint64_t id) {
  std::shared_ptr<detail::HttpConnection> released;  // destroyed outside the lock
  std::lock_guard lock(mutex_);
  auto found = connections_.find(id);
  if (found == connections_.end()) return;
  released = std::move(found->second);
  connections_.erase(found);
  if (connections_.empty()) drained_.notify_all();
}

std::size_t HttpServer::Impl::open_connections() const {
  std::lock_guard lock(mutex_);
  return connections_.size();
}

std::vector<std::shared_ptr<detail::HttpConnection>> HttpServer::Impl::snapshot_connections()
    const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<detail::HttpConnection>> all;
  all.reserve(connections_.size());
  for (const auto& [id, connection] : connections_) all.push_back(connection);
  return all;
}

void HttpServer::Impl::stop(std::chrono::milliseconds grace) {
  if (!started_ || stopped_) return;
  stopped_ = true;
  {
    std::lock_guard lock(mutex_);
    stopping_.store(true, std::memory_order_release);
  }
  asio::post(acceptor_.get_executor(), [this] {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    accept_retry_timer_.cancel();
  });
  for (auto& connection : snapshot_connections()) {
    asio::post(connection->executor(), [connection] { connection->begin_shutdown(); });
  }
  {
    std::unique_lock lock(mutex_);
    drained_.wait_for(lock, grace, [this] { return connections_.empty(); });
  }
  for (auto& connection : snapshot_connections()) {
    asio::post(connection->executor(), [connection] { connection->force_close(); });
  }
  work_.reset();
  for (auto& thread : threads_) thread.join();
  threads_.clear();
  {
    std::lock_guard lock(life_->mutex);
    life_->alive = false;
  }
  std::lock_guard lock(mutex_);
  connections_.clear();
}

}  // namespace hookd::net
