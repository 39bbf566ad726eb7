// One outbound attempt as a libcurl easy handle (see http_client_transfer.hpp).
//
// Why the pre-request guard: libcurl resends a request by itself when it used a reused
// keep-alive connection and got no response byte back (EOF or receive error) — it assumes
// the server closed the idle connection just as we sent (lib/transfer.c,
// Curl_retry_request; seen with 7.88.1: the receiver got the same POST twice, also over a
// second pooled connection without a new socket). But a receiver may well have
// processed the request and then lost the connection (A25), so the resend would be a
// second request on the wire that no attempt log shows (A09). There is no option to turn
// this off, so the transfer refuses it: a second socket opened after the request was sent
// is refused, and CURLOPT_PREREQFUNCTION (called each time libcurl is about to send the
// request) aborts a second send. The attempt then ends as kConnectionClosed and the
// delivery policy decides about a retry.
#include "net/http_client_transfer.hpp"

#include "net/http_types.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <string_view>

namespace hookd::net {
namespace {

bool is_token(std::string_view text) {
  if (text.empty()) return false;
  return std::ranges::all_of(text, [](char c) {
    auto u = static_cast<unsigned char>(c);
    return std::isalnum(u) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

bool has_line_break(std::string_view text) {
  return text.find_first_of("\r\n") != std::string_view::npos ||
         text.find('\0') != std::string_view::npos;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' ||
                           text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace

Transfer::Transfer(OutboundRequest request, HttpClient::Done done, const HttpClientOptions& options)
    : request_(std::move(request)),
      done_(std::move(done)),
      guard_(options.address_guard ? &options.address_guard : nullptr),
      body_limit_(options.body_limit),
      drain_limit_(options.drain_limit),
      total_timeout_(request_.total_timeout.value_or(options.total_timeout)) {
  if (request_.spool_response_above) {
    spool_.emplace(options.spool_dir, *request_.spool_response_above);
  }
  easy_ = curl_easy_init();
  if (easy_ == nullptr) {
    invalid_reason_ = "curl_easy_init failed";
    return;
  }
  configure(options);
  if (invalid_reason_.empty() && !configure_method()) return;
  if (invalid_reason_.empty()) configure_headers();
}

Transfer::~Transfer() {
  if (easy_ != nullptr) curl_easy_cleanup(easy_);
  if (header_list_ != nullptr) curl_slist_free_all(header_list_);
}

void Transfer::configure(const HttpClientOptions& options) {
  auto connect_ms = request_.connect_timeout.value_or(options.connect_timeout).count();
  auto total_ms = request_.total_timeout.value_or(options.total_timeout).count();
  bool ok = true;
  auto set = [&](CURLoption option, auto value) {
    ok = ok && curl_easy_setopt(easy_, option, value) == CURLE_OK;
  };
  set(CURLOPT_PRIVATE, static_cast<void*>(this));
  set(CURLOPT_ERRORBUFFER, error_buffer_);
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_PROTOCOLS_STR, "http,https");
  set(CURLOPT_FOLLOWLOCATION, 0L);
  set(CURLOPT_PROXY, "");  // never a proxy from http_proxy/HTTPS_PROXY/ALL_PROXY
  set(CURLOPT_NOPROXY, "*");
  set(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  set(CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect_ms));
  set(CURLOPT_TIMEOUT_MS, static_cast<long>(total_ms));
  set(CURLOPT_MAXAGE_CONN, static_cast<long>(options.max_idle_age.count()));
  set(CURLOPT_TCP_NODELAY, 1L);
  set(CURLOPT_USERAGENT, options.user_agent.c_str());
  set(CURLOPT_OPENSOCKETFUNCTION, &Transfer::open_socket);
  set(CURLOPT_OPENSOCKETDATA, static_cast<void*>(this));
  set(CURLOPT_PREREQFUNCTION, &Transfer::before_request);
  set(CURLOPT_PREREQDATA, static_cast<void*>(this));
  set(CURLOPT_HEADERFUNCTION, &Transfer::on_header);
  set(CURLOPT_HEADERDATA, static_cast<void*>(this));
  set(CURLOPT_WRITEFUNCTION, &Transfer::on_body);
  set(CURLOPT_WRITEDATA, static_cast<void*>(this));
  // The URL last: its scheme and syntax are the caller's input, the rest is ours.
  if (ok && curl_easy_setopt(easy_, CURLOPT_URL, request_.url.c_str()) != CURLE_OK) {
    invalid_reason_ = "URL rejected by libcurl";
  } else if (!ok) {
    invalid_reason_ = "libcurl rejected an option";
  }
}

bool Transfer::configure_method() {
  const std::string& method = request_.method;
  if (!is_token(method)) {
    invalid_reason_ = "invalid HTTP method";
    return false;
  }
  const bool has_body = !request_.body.empty() || request_.body_file != nullptr;
  if (method == "GET" && !has_body) {
    curl_easy_setopt(easy_, CURLOPT_HTTPGET, 1L);
    return true;
  }
  if (method == "HEAD") {
    if (has_body) {
      invalid_reason_ = "HEAD with a body";
      return false;
    }
    curl_easy_setopt(easy_, CURLOPT_NOBODY, 1L);
    return true;
  }
  if (method != "POST") curl_easy_setopt(easy_, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (request_.body_file) {
    // Streamed from the file with a known length (no chunked encoding). A resend would need
    // a rewind, which is refused (no seek callback) like every other resend.
    curl_easy_setopt(easy_, CURLOPT_POST, 1L);
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request_.body_file->size()));
    curl_easy_setopt(easy_, CURLOPT_READFUNCTION, &Transfer::on_upload);
    curl_easy_setopt(easy_, CURLOPT_READDATA, static_cast<void*>(this));
    return true;
  }
  bool sends_body = has_body || method == "POST" || method == "PUT" || method == "PATCH";
  if (sends_body) {
    // Exact bytes, no copy: request_ lives as long as the easy handle.
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request_.body.size()));
    curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, request_.body.data());
  }
  return true;
}

bool Transfer::configure_headers() {
  bool has_content_type = false;
  bool has_expect = false;
  for (const auto& [name, value] : request_.headers) {
    if (!is_token(name) || has_line_break(value)) {
      invalid_reason_ = "invalid header: " + name;
      return false;
    }
    has_content_type = has_content_type || iequals(name, "content-type");
    has_expect = has_expect || iequals(name, "expect");
    // "Name;" is libcurl's syntax for a header with an empty value.
    std::string line = value.empty() ? name + ";" : name + ": " + value;
    header_list_ = curl_slist_append(header_list_, line.c_str());
  }
  // No form content type invented by libcurl, no 100-continue round trip.
  if (!has_content_type) header_list_ = curl_slist_append(header_list_, "Content-Type:");
  if (!has_expect) header_list_ = curl_slist_append(header_list_, "Expect:");
  curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, header_list_);
  return true;
}

curl_socket_t Transfer::open_socket(void* self_ptr, curlsocktype purpose, curl_sockaddr* address) {
  auto* self = static_cast<Transfer*>(self_ptr);
  if (purpose != CURLSOCKTYPE_IPCXN) return CURL_SOCKET_BAD;
  if (self->requests_started_ > 0) {
    // libcurl wants a fresh connection to resend the request: refused (see top of file).
    self->resend_refused_ = true;
    return CURL_SOCKET_BAD;
  }
  if (self->guard_ != nullptr) {
    AddressVerdict verdict = (*self->guard_)(&address->addr, address->addrlen);
    if (!verdict.allowed) {
      ++self->addresses_refused_;
      self->guard_reason_ = verdict.reason;
      return CURL_SOCKET_BAD;
    }
  }
  curl_socket_t fd = ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
  if (fd != CURL_SOCKET_BAD) ++self->sockets_opened_;
  return fd;
}

int Transfer::before_request(void* self_ptr, char*, char*, int, int) {
  auto* self = static_cast<Transfer*>(self_ptr);
  if (++self->requests_started_ > 1) {
    self->resend_refused_ = true;
    return CURL_PREREQFUNC_ABORT;
  }
  return CURL_PREREQFUNC_OK;
}

size_t Transfer::on_header(char* data, size_t size, size_t count, void* self_ptr) {
  auto* self = static_cast<Transfer*>(self_ptr);
  std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    self->headers_.clear();  // a new (final or interim) response starts
  } else if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
    if (!self->headers_.empty()) {  // obsolete line folding: continues the previous value
      self->headers_.back().second += ' ';
      self->headers_.back().second += trim(line);
    }
  } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
    self->headers_.emplace_back(std::string(trim(line.substr(0, colon))),
                                std::string(trim(line.substr(colon + 1))));
  }
  return size * count;
}

size_t Transfer::on_upload(char* buffer, size_t size, size_t count, void* self_ptr) {
  auto* self = static_cast<Transfer*>(self_ptr);
  auto read = self->request_.body_file->read_at(self->upload_offset_, buffer, size * count);
  if (!read) return CURL_READFUNC_ABORT;
  self->upload_offset_ += *read;
  return *read;
}

bool Transfer::keep_body(std::string_view part) {
  if (!spool_) {
    body_.append(part);
    return true;
  }
  auto appended = spool_->append(part);
  if (!appended) spool_error_ = appended.error().message;
  return appended.has_value();
}

size_t Transfer::on_body(char* data, size_t size, size_t count, void* self_ptr) {
  auto* self = static_cast<Transfer*>(self_ptr);
  size_t length = size * count;
  const std::size_t kept = std::min(self->body_bytes_seen_, self->body_limit_);
  if (kept < self->body_limit_ &&
      !self->keep_body({data, std::min(length, self->body_limit_ - kept)})) {
    return 0;  // the spool failed: the attempt ends as an error
  }
  self->body_bytes_seen_ += length;
  if (self->body_bytes_seen_ > self->body_limit_ + self->drain_limit_) {
    self->drain_exceeded_ = true;
    return 0;  // stop reading; libcurl closes the connection
  }
  return length;
}

}  // namespace hookd::net
