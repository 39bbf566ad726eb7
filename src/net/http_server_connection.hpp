// Internal to the HTTP server adapter: one accepted TCP connection. It reads one request
// at a time within the configured limits, hands it to the handler, writes the response and
// only then reads the next request (so pipelined requests are answered in order).
// Thread-safety: every member function runs on the connection's strand; other threads reach
// it only by posting to executor() (Responder, HttpServer::stop).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "net/http_server_impl.hpp"
#include "net/http_spool_body.hpp"

namespace hookd::net::detail {

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  HttpConnection(boost::asio::ip::tcp::socket socket, HttpServer::Impl& server, std::uint64_t id);

  boost::beast::tcp_stream::executor_type executor() { return stream_.get_executor(); }

  // Each of these must run on executor().
  void start();
  void respond(HttpResponse response);
  void begin_shutdown();  // server stopping: close now if between requests
  void force_close();     // grace period over

 private:
  enum class Phase { kIdle, kReading, kHandling, kWriting, kLingering, kClosed };
  using ErrorCode = boost::system::error_code;

  void wait_for_request();
  void on_request_bytes(ErrorCode ec, std::size_t bytes);
  void read_header(bool restart_deadline = true);
  void parse_header_when_complete();
  bool screen_head(std::string_view view);
  std::optional<std::string> host_problem(
      const boost::beast::http::request<boost::beast::http::string_body>& message) const;
  void on_header_bytes(ErrorCode ec, std::size_t bytes);
  void on_header();
  void on_continue_written(ErrorCode ec);
  bool spools(const boost::beast::http::request<boost::beast::http::string_body>& message) const;
  void read_body();
  void on_body(ErrorCode ec);
  void dispatch_request();
  template <class Message>
  HttpRequest request_of(Message& message);
  void hand_to_handler(HttpRequest request);
  void fail_request(ErrorCode ec);
  void reject_malformed(ErrorCode ec);
  void reject_request(int status, std::string_view detail);
  void write_response(HttpResponse&& response);
  template <class Message>
  void frame_response(Message& message, const HttpResponse& response, int status);
  void write_file_response(HttpResponse&& response, int status);
  void write_file_chunk();
  void on_written(ErrorCode ec);
  void linger_then_close();
  void on_linger_read(ErrorCode ec);
  void close();

  HttpServer::Impl& server_;
  const std::uint64_t id_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  // Replaces parser_ after the header for a request under the spool prefix.
  std::optional<boost::beast::http::request_parser<SpoolRequestBody>> spool_parser_;
  boost::beast::http::response<boost::beast::http::string_body> response_;
  boost::beast::http::response<FileResponseBody> file_response_;
  std::optional<boost::beast::http::response_serializer<FileResponseBody>> file_serializer_;
  boost::beast::http::response<boost::beast::http::empty_body> continue_;
  std::string remote_address_;
  std::uint16_t remote_port_ = 0;
  Phase phase_ = Phase::kIdle;
  std::size_t header_scan_from_ = 0;
  std::size_t line_length_ = 0;        // of the request line once it checked out; 0 before
  std::size_t fields_checked_to_ = 0;  // header field lines up to here checked out
  std::size_t body_limit_ = 0;         // of the request being read
  bool first_request_ = true;
  bool keep_alive_ = false;
  bool head_request_ = false;
  unsigned version_ = 11;
};

}  // namespace hookd::net::detail
