// A blocking loopback HTTP/1.1 test client on plain POSIX sockets, with receive timeouts so
// a misbehaving server fails a test instead of hanging it. Parses just enough of a response
// (status, headers, Content-Length body) for the server tests.
// Thread-safety: one client per thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/http_types.hpp"

namespace hookd::net::testing {

struct RawResponse {
  int status = 0;
  HttpHeaders headers;
  std::string body;
};

class RawHttpClient {
 public:
  explicit RawHttpClient(std::uint16_t port,
                         std::chrono::milliseconds receive_timeout = std::chrono::seconds(10)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{};
    tv.tv_sec = static_cast<long>(receive_timeout.count() / 1000);
    tv.tv_usec = static_cast<long>((receive_timeout.count() % 1000) * 1000);
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  }
  ~RawHttpClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawHttpClient(const RawHttpClient&) = delete;
  RawHttpClient& operator=(const RawHttpClient&) = delete;

  bool connected() const { return connected_; }

  // Sends all bytes; false if the peer closed or the send timed out.
  bool send(std::string_view bytes) {
    while (!bytes.empty()) {
      auto sent = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (sent <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(sent));
    }
    return true;
  }

  // Reads one response; nullopt on timeout, close or a response it cannot parse.
  // For a response to HEAD pass `has_body` = false (Content-Length describes no bytes).
  std::optional<RawResponse> read_response(bool has_body = true) {
    std::size_t header_end;
    while ((header_end = pending_.find("\r\n\r\n")) == std::string::npos) {
      if (!receive_more()) return std::nullopt;
    }
    RawResponse response;
    std::string_view head(pending_.data(), header_end);
    auto line_end = head.find("\r\n");
    std::string_view status_line = head.substr(0, line_end);
    if (status_line.size() < 12) return std::nullopt;
    response.status = std::stoi(std::string(status_line.substr(9, 3)));
    std::size_t position = line_end == std::string_view::npos ? head.size() : line_end + 2;
    while (position < head.size()) {
      auto next = head.find("\r\n", position);
      if (next == std::string_view::npos) next = head.size();
      std::string_view line = head.substr(position, next - position);
      auto colon = line.find(':');
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      response.headers.add(std::string(line.substr(0, colon)), std::string(value));
      position = next + 2;
    }
    std::size_t length = 0;
    auto header = response.headers.get("Content-Length");
    if (header && has_body) length = std::stoul(std::string(*header));
    std::size_t body_start = header_end + 4;
    while (pending_.size() < body_start + length) {
      if (!receive_more()) return std::nullopt;
    }
    response.body = pending_.substr(body_start, length);
    pending_.erase(0, body_start + length);
    return response;
  }

  std::optional<RawResponse> request(std::string_view bytes) {
    if (!send(bytes)) return std::nullopt;
    return read_response();
  }

  // True when the server closed the connection (EOF or reset) within the receive timeout;
  // false when the timeout passed first or unexpected bytes arrived.
  bool closed_by_peer() {
    char byte;
    for (;;) {
      auto got = ::recv(fd_, &byte, 1, 0);
      if (got == 0) return true;
      if (got < 0) return errno == ECONNRESET || errno == EPIPE;
      return false;
    }
  }

  int fd() const { return fd_; }

 private:
  bool receive_more() {
    char chunk[16 * 1024];
    auto got = ::recv(fd_, chunk, sizeof chunk, 0);
    if (got <= 0) return false;
    pending_.append(chunk, static_cast<std::size_t>(got));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string pending_;
};

inline std::string get_request(std::string_view path, std::string_view extra_headers = {}) {
  return "GET " + std::string(path) + " HTTP/1.1\r\nHost: test\r\n" + std::string(extra_headers) +
         "\r\n";
}

inline std::string post_request(std::string_view path, std::string_view body,
                                std::string_view extra_headers = {}) {
  return "POST " + std::string(path) +
         " HTTP/1.1\r\nHost: test\r\nContent-Length: " + std::to_string(body.size()) + "\r\n" +
         std::string(extra_headers) + "\r\n" + std::string(body);
}

}  // namespace hookd::net::testing
