// One server-side HTTP/1.1 connection: read (within limits) → handle → write → repeat.
#include "net/http_server_connection.hpp"

#include "net/request_head.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/write.hpp>
#include <exception>
#include <iterator>

namespace hookd::net::detail {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;

namespace {

constexpr std::size_t kReadChunk = 8 * 1024;
// How long a closing connection keeps draining what the client still sends, so the client
// reads our final response instead of a TCP reset.
constexpr std::chrono::milliseconds kMaxLinger{2'000};
constexpr std::chrono::milliseconds kStoppingLinger{200};

std::string to_std(beast::string_view view) { return std::string(view.data(), view.size()); }

bool is_parse_error(const boost::system::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_target).category() &&
         ec != http::error::end_of_stream && ec != http::error::partial_message;
}

bool expects_continue(const http::request_header<>& message) {
  auto expect = message[http::field::expect];
  return iequals(std::string_view(expect.data(), expect.size()), "100-continue");
}

bool forbids_body(int status) { return status < 200 || status == 204 || status == 304; }

}  // namespace

HttpConnection::HttpConnection(asio::ip::tcp::socket socket, HttpServer::Impl& server,
                               std::uint64_t id)
    : server_(server), id_(id), stream_(std::move(socket)) {
  boost::system::error_code ec;
  auto remote = stream_.socket().remote_endpoint(ec);
  if (!ec) {
    remote_address_ = remote.address().to_string();
    remote_port_ = remote.port();
  }
  stream_.socket().set_option(asio::ip::tcp::no_delay(true), ec);
  continue_.result(http::status::continue_);
  continue_.version(11);
}

void HttpConnection::start() { wait_for_request(); }

// Between requests: wait for the first byte under the idle timeout (the read timeout for a
// fresh connection), unless pipelined bytes are already buffered.
void HttpConnection::wait_for_request() {
  phase_ = Phase::kIdle;
  if (server_.stopping()) return linger_then_close();
  if (buffer_.size() > 0) return read_header();
  const auto& options = server_.options();
  stream_.expires_after(first_request_ ? options.request_read_timeout : options.idle_timeout);
  stream_.async_read_some(
      buffer_.prepare(kReadChunk),
      [self = shared_from_this()](ErrorCode ec, std::size_t n) { self->on_request_bytes(ec, n); });
}

void HttpConnection::on_request_bytes(ErrorCode ec, std::size_t bytes) {
  if (phase_ != Phase::kIdle) return;
  if (ec) return close();  // timeout, EOF, reset, or cancelled by begin_shutdown
  buffer_.commit(bytes);
  // A fresh connection's deadline already is the read timeout, counted from accept.
  read_header(/*restart_deadline=*/!first_request_);
}

void HttpConnection::read_header(bool restart_deadline) {
  phase_ = Phase::kReading;
  const auto& options = server_.options();
  parser_.emplace();
  spool_parser_.reset();
  parser_->header_limit(static_cast<std::uint32_t>(options.max_header_bytes));
  // The route's limit is set once the target is known (on_header); until then the larger.
  body_limit_ = options.spool_prefix.empty()
                    ? options.max_body_bytes
                    : std::max(options.max_body_bytes, options.spool_max_body_bytes);
  parser_->body_limit(body_limit_);
  parser_->eager(false);
  header_scan_from_ = 0;
  line_length_ = 0;
  fields_checked_to_ = 0;
  // One deadline covers header and body together.
  if (restart_deadline) stream_.expires_after(options.request_read_timeout);
  parse_header_when_complete();
}

// Beast 1.74 applies header_limit per parse call, not to the whole header, so the header is
// collected here until its blank line (bounded by max_header_bytes) and parsed in one go.
void HttpConnection::parse_header_when_complete() {
  const auto& options = server_.options();
  auto data = buffer_.data();
  std::string_view view(static_cast<const char*>(data.data()), data.size());
  while (header_scan_from_ == 0 && view.starts_with("\r\n")) {
    buffer_.consume(2);  // RFC 9112 2.2: ignore empty lines before a request line
    view.remove_prefix(2);
  }
  if (!screen_head(view)) return;  // refused at once: a problem response is on its way
  auto end = view.find("\r\n\r\n", header_scan_from_);
  if (end == std::string_view::npos) {
    if (view.size() >= options.max_header_bytes) return fail_request(http::error::header_limit);
    header_scan_from_ = view.size() < 3 ? 0 : view.size() - 3;
    stream_.async_read_some(
        buffer_.prepare(kReadChunk),
        [self = shared_from_this()](ErrorCode ec, std::size_t n) { self->on_header_bytes(ec, n); });
    return;
  }
  if (end + 4 > options.max_header_bytes) return fail_request(http::error::header_limit);
  ErrorCode ec;
  auto used = parser_->put(asio::buffer(view.data(), end + 4), ec);
  buffer_.consume(used);
  if (ec == http::error::need_more || (!ec && !parser_->is_header_done())) {
    return reject_request(400, "malformed HTTP request: incomplete header");
  }
  if (ec) return fail_request(ec);  // including body_limit for a too large Content-Length
  on_header();
}

// What arrived of the head so far (request_head.hpp): a request line or a field line that can
// never be valid is refused now, not when read_timeout ends the wait for the blank line;
// HTTP/1.x (x > 1) is rewritten in the buffer to HTTP/1.1 (RFC 9110 §2.5) before Beast
// parses it. False when the request was refused.
bool HttpConnection::screen_head(std::string_view view) {
  if (line_length_ == 0) {
    if (view == "\r") return true;  // maybe the start of an empty line before the request
    auto line = check_request_line(view, server_.options().max_target_bytes);
    switch (line.verdict) {
      case RequestLineCheck::Verdict::kIncomplete:
        return true;
      case RequestLineCheck::Verdict::kMalformed:
        reject_request(400, "malformed HTTP request: " + line.reason);
        return false;
      case RequestLineCheck::Verdict::kTargetTooLong:
        reject_request(414, line.reason);
        return false;
      case RequestLineCheck::Verdict::kVersionNotSupported:
        reject_request(505, line.reason);
        return false;
      case RequestLineCheck::Verdict::kComplete:
        break;
    }
    if (line.minor_digit_at) {
      static_cast<char*>(buffer_.data().data())[*line.minor_digit_at] = '1';  // `view` too
    }
    line_length_ = fields_checked_to_ = line.length;
  }
  for (;;) {
    const auto eol = view.find("\r\n", fields_checked_to_);
    if (eol == std::string_view::npos || eol == fields_checked_to_) return true;  // or blank
    if (auto bad = bad_field_line(view.substr(fields_checked_to_, eol - fields_checked_to_))) {
      reject_request(400, "malformed HTTP request: " + *bad);
      return false;
    }
    fields_checked_to_ = eol + 2;
  }
}

// RFC 9112 §3.2: exactly one Host in an HTTP/1.1 request (at most one in 1.0), a valid value.
std::optional<std::string> HttpConnection::host_problem(
    const http::request<http::string_body>& message) const {
  const auto hosts = message.count(http::field::host);
  if (hosts == 0) {
    if (message.version() < 11) return std::nullopt;
    return "an HTTP/1.1 request needs a Host header (RFC 9112 section 3.2)";
  }
  if (hosts > 1) return "the request has more than one Host header";
  auto value = message[http::field::host];
  if (!valid_host_value(std::string_view(value.data(), value.size()))) {
    return "the Host header is not a valid host[:port]";
  }
  return std::nullopt;
}

void HttpConnection::on_header_bytes(ErrorCode ec, std::size_t bytes) {
  if (phase_ != Phase::kReading) return;
  if (ec) return fail_request(ec);
  buffer_.commit(bytes);
  parse_header_when_complete();
}

void HttpConnection::on_header() {
  const auto& options = server_.options();
  auto& message = parser_->get();
  if (auto problem = host_problem(message)) return reject_request(400, *problem);
  if (message.target().size() > options.max_target_bytes) {
    return reject_request(
        414, "request target exceeds " + std::to_string(options.max_target_bytes) + " bytes");
  }
  const bool spooled = spools(message);
  body_limit_ = spooled ? options.spool_max_body_bytes : options.max_body_bytes;
  parser_->body_limit(body_limit_);
  auto length = parser_->content_length();
  if (length && *length > body_limit_) {
    return reject_request(413, "request body of " + std::to_string(*length) +
                                   " bytes exceeds the limit of " + std::to_string(body_limit_) +
                                   " bytes");
  }
  if (parser_->is_done()) return dispatch_request();
  if (spooled) {
    // No body byte was parsed yet (the header was put alone), so the parser can change body.
    spool_parser_.emplace(std::move(*parser_));
    parser_.reset();
    spool_parser_->body_limit(body_limit_);
    spool_parser_->get().body() = BodySpool(options.spool_dir, options.spool_memory_bytes);
  }
  auto& header = spool_parser_ ? spool_parser_->get().base() : parser_->get().base();
  if (header.version() >= 11 && expects_continue(header)) {
    return http::async_write(
        stream_, continue_,
        [self = shared_from_this()](ErrorCode ec, std::size_t) { self->on_continue_written(ec); });
  }
  read_body();
}

void HttpConnection::on_continue_written(ErrorCode ec) {
  if (phase_ != Phase::kReading) return;
  if (ec) return close();
  read_body();
}

bool HttpConnection::spools(const http::request<http::string_body>& message) const {
  const auto& prefix = server_.options().spool_prefix;
  auto target = message.target();
  return !prefix.empty() && std::string_view(target.data(), target.size()).starts_with(prefix);
}

void HttpConnection::read_body() {
  auto done = [self = shared_from_this()](ErrorCode ec, std::size_t) { self->on_body(ec); };
  if (spool_parser_) return http::async_read(stream_, buffer_, *spool_parser_, std::move(done));
  http::async_read(stream_, buffer_, *parser_, std::move(done));
}

void HttpConnection::on_body(ErrorCode ec) {
  if (phase_ != Phase::kReading) return;
  if (ec && spool_parser_ && ec == spool_io_error()) {
    spool_parser_.reset();  // closes and so deletes the spool file
    return reject_request(503, "the request body could not be stored for forwarding");
  }
  if (ec) return fail_request(ec);
  dispatch_request();
}

// Limits and malformed input get an error response; a vanished or too slow client is closed.
void HttpConnection::fail_request(ErrorCode ec) {
  const auto& options = server_.options();
  if (ec == http::error::header_limit) {
    return reject_request(
        431, "request header exceeds " + std::to_string(options.max_header_bytes) + " bytes");
  }
  if (ec == http::error::body_limit) {
    return reject_request(
        413, "request body exceeds the limit of " + std::to_string(body_limit_) + " bytes");
  }
  if (is_parse_error(ec)) return reject_malformed(ec);
  close();
}

void HttpConnection::reject_malformed(ErrorCode ec) {
  reject_request(400, "malformed HTTP request: " + ec.message());
}

void HttpConnection::reject_request(int status, std::string_view detail) {
  keep_alive_ = false;
  head_request_ = false;
  version_ = 11;
  write_response(problem_response(status, detail));
}

template <class Message>
HttpRequest HttpConnection::request_of(Message& message) {
  keep_alive_ = message.keep_alive();
  head_request_ = message.method() == http::verb::head;
  version_ = message.version();
  HttpRequest request;
  request.method = to_std(message.method_string());
  request.target = to_std(message.target());
  request.version = static_cast<int>(message.version());
  request.headers.reserve(static_cast<std::size_t>(std::distance(message.begin(), message.end())));
  for (const auto& field : message) {
    request.headers.add(to_std(field.name_string()), to_std(field.value()));
  }
  request.remote_address = remote_address_;
  request.remote_port = remote_port_;
  return request;
}

void HttpConnection::dispatch_request() {
  phase_ = Phase::kHandling;
  stream_.expires_never();
  if (spool_parser_) {
    auto message = spool_parser_->release();
    spool_parser_.reset();
    HttpRequest request = request_of(message);
    BodySpool& spool = message.body();
    if (spool.in_file()) {
      request.spooled = spool.finish_file();
    } else {
      request.body = spool.take_memory();
    }
    return hand_to_handler(std::move(request));
  }
  auto message = parser_->release();
  parser_.reset();
  HttpRequest request = request_of(message);
  request.body = std::move(message.body());
  hand_to_handler(std::move(request));
}

void HttpConnection::hand_to_handler(HttpRequest request) {
  try {
    server_.handler()(std::move(request), Responder(weak_from_this(), server_.life()));
  } catch (const std::exception&) {
    // The handler broke its contract; its Responder, destroyed while unwinding, sent a 500.
  }
}

void HttpConnection::respond(HttpResponse response) {
  if (phase_ != Phase::kHandling) return;  // closed meanwhile (stop, force close)
  write_response(std::move(response));
}

template <class Message>
void HttpConnection::frame_response(Message& message, const HttpResponse& response, int status) {
  message.result(static_cast<unsigned>(status));
  message.version(version_);
  for (const auto& field : response.headers) {
    if (iequals(field.name, "Content-Length") || iequals(field.name, "Transfer-Encoding") ||
        iequals(field.name, "Connection")) {
      continue;  // framing is ours
    }
    message.insert(field.name, field.value);
  }
  if (server_.stopping()) keep_alive_ = false;
  message.keep_alive(keep_alive_);
}

void HttpConnection::write_response(HttpResponse&& response) {
  phase_ = Phase::kWriting;
  int status = (response.status < 100 || response.status > 999) ? 500 : response.status;
  if (response.file_body && !forbids_body(status)) {
    return write_file_response(std::move(response), status);
  }
  response_ = {};
  frame_response(response_, response, status);
  if (forbids_body(status)) {
    response.body.clear();
  } else {
    response_.content_length(response.body.size());
    if (head_request_) response.body.clear();
  }
  response_.body() = std::move(response.body);
  stream_.expires_after(server_.options().write_timeout);
  http::async_write(stream_, response_, [self = shared_from_this()](ErrorCode ec, std::size_t) {
    self->on_written(ec);
  });
}

// A body from a file: written chunk by chunk, the write timeout counting per chunk.
void HttpConnection::write_file_response(HttpResponse&& response, int status) {
  file_response_ = {};
  frame_response(file_response_, response, status);
  file_response_.content_length(response.file_body->size());
  if (head_request_) {
    response_ = {};
    frame_response(response_, response, status);
    response_.content_length(response.file_body->size());
    stream_.expires_after(server_.options().write_timeout);
    return http::async_write(
        stream_, response_,  // Content-Length of the file, no body
        [self = shared_from_this()](ErrorCode ec, std::size_t) { self->on_written(ec); });
  }
  file_response_.body() = std::move(response.file_body);
  file_serializer_.emplace(file_response_);
  write_file_chunk();
}

void HttpConnection::write_file_chunk() {
  stream_.expires_after(server_.options().write_timeout);
  http::async_write_some(stream_, *file_serializer_,
                         [self = shared_from_this()](ErrorCode ec, std::size_t) {
                           if (self->phase_ != Phase::kWriting) return;
                           if (!ec && !self->file_serializer_->is_done()) {
                             return self->write_file_chunk();
                           }
                           self->file_serializer_.reset();
                           self->file_response_ = {};  // drops the file
                           self->on_written(ec);
                         });
}

void HttpConnection::on_written(ErrorCode ec) {
  if (phase_ != Phase::kWriting) return;
  if (ec) return close();
  if (!keep_alive_) return linger_then_close();
  first_request_ = false;
  wait_for_request();
}

// Half-close, then drain the client's remaining bytes for a moment before closing.
void HttpConnection::linger_then_close() {
  phase_ = Phase::kLingering;
  ErrorCode ec;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ec);
  if (ec) return close();
  auto linger = server_.stopping() ? kStoppingLinger : kMaxLinger;
  stream_.expires_after(std::min(linger, server_.options().request_read_timeout));
  buffer_.clear();
  stream_.async_read_some(
      buffer_.prepare(kReadChunk),
      [self = shared_from_this()](ErrorCode ec, std::size_t) { self->on_linger_read(ec); });
}

void HttpConnection::on_linger_read(ErrorCode ec) {
  if (phase_ != Phase::kLingering) return;
  if (ec) return close();
  stream_.async_read_some(
      buffer_.prepare(kReadChunk),
      [self = shared_from_this()](ErrorCode ec, std::size_t) { self->on_linger_read(ec); });
}

void HttpConnection::begin_shutdown() {
  if (phase_ == Phase::kIdle) close();
}

void HttpConnection::force_close() { close(); }

void HttpConnection::close() {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kClosed;
  auto self = shared_from_this();  // the registry may hold the last reference
  stream_.close();
  spool_parser_.reset();  // a spool file goes with its descriptor
  server_.on_connection_closed(id_);
}

}  // namespace hookd::net::detail
