// HTTP/1.1 reading and writing for TestReceiver (see test_receiver_wire.hpp).
#include "support/test_receiver_wire.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <string_view>

namespace hookd::testing::wire {
namespace {

constexpr std::size_t kMaxHeaderBytes = 64 * 1024;

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Reads more bytes into `buffer`; false on EOF or error.
bool fill(int fd, std::string& buffer) {
  char chunk[16 * 1024];
  while (true) {
    ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n > 0) {
      buffer.append(chunk, static_cast<std::size_t>(n));
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

// Takes `count` bytes from the front of the stream.
bool take(int fd, std::string& buffer, std::size_t count, std::string& out) {
  while (buffer.size() < count) {
    if (!fill(fd, buffer)) return false;
  }
  out.append(buffer, 0, count);
  buffer.erase(0, count);
  return true;
}

bool take_line(int fd, std::string& buffer, std::string& line) {
  std::size_t end;
  while ((end = buffer.find("\r\n")) == std::string::npos) {
    if (buffer.size() > kMaxHeaderBytes || !fill(fd, buffer)) return false;
  }
  line.assign(buffer, 0, end);
  buffer.erase(0, end + 2);
  return true;
}

bool read_chunked(int fd, std::string& buffer, std::string& body) {
  while (true) {
    std::string line;
    if (!take_line(fd, buffer, line)) return false;
    std::size_t size = 0;
    auto [ptr, ec] = std::from_chars(line.data(), line.data() + line.size(), size, 16);
    if (ec != std::errc()) return false;
    if (size == 0) break;
    std::string crlf;
    if (!take(fd, buffer, size, body) || !take(fd, buffer, 2, crlf)) return false;
  }
  std::string trailer;
  do {  // trailers up to the empty line
    if (!take_line(fd, buffer, trailer)) return false;
  } while (!trailer.empty());
  return true;
}

bool parse_head(std::string_view head, ReceivedRequest& request) {
  std::size_t line_end = head.find("\r\n");
  std::string_view line = head.substr(0, line_end);
  std::size_t first = line.find(' ');
  std::size_t last = line.rfind(' ');
  if (first == std::string_view::npos || last == first) return false;
  request.method = std::string(line.substr(0, first));
  request.target = std::string(line.substr(first + 1, last - first - 1));
  request.version = std::string(line.substr(last + 1));
  request.path = request.target.substr(0, request.target.find('?'));
  while (line_end != std::string_view::npos) {
    std::size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    std::string_view header = head.substr(start, line_end - start);
    std::size_t colon = header.find(':');
    if (header.empty() || colon == std::string_view::npos) continue;
    request.headers.emplace_back(std::string(trim(header.substr(0, colon))),
                                 std::string(trim(header.substr(colon + 1))));
  }
  return true;
}

}  // namespace

std::optional<ReceivedRequest> read_request(int fd, std::string& buffer) {
  std::size_t head_end;
  while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos) {
    if (buffer.size() > kMaxHeaderBytes || !fill(fd, buffer)) return std::nullopt;
  }
  ReceivedRequest request;
  if (!parse_head(std::string_view(buffer).substr(0, head_end), request)) return std::nullopt;
  buffer.erase(0, head_end + 4);
  auto encoding = request.header("transfer-encoding");
  if (encoding && lower(*encoding).find("chunked") != std::string::npos) {
    if (!read_chunked(fd, buffer, request.body)) return std::nullopt;
    return request;
  }
  std::size_t length = 0;
  if (auto value = request.header("content-length")) {
    auto [ptr, ec] = std::from_chars(value->data(), value->data() + value->size(), length);
    if (ec != std::errc()) return std::nullopt;
  }
  if (!take(fd, buffer, length, request.body)) return std::nullopt;
  return request;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string format_response(const ReceiverBehavior& behavior) {
  std::string out = "HTTP/1.1 " + std::to_string(behavior.status) + " Test\r\n";
  for (const auto& [name, value] : behavior.headers) out += name + ": " + value + "\r\n";
  out += "Content-Length: " + std::to_string(behavior.body.size()) + "\r\n\r\n";
  out += behavior.body;
  return out;
}

bool wants_close(const ReceivedRequest& request) {
  auto connection = request.header("connection");
  if (connection && lower(*connection) == "close") return true;
  return request.version == "HTTP/1.0" && !(connection && lower(*connection) == "keep-alive");
}

}  // namespace hookd::testing::wire
