// Transfer: one outbound attempt as a libcurl easy handle — its options, its callbacks
// (SSRF guard, pre-request guard against libcurl's silent resend, header and body
// collection) and the classification of how it ended. Internal to HttpClient.
// Thread-safety: owned and used by the client's thread only.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "net/body_spool.hpp"
#include "net/http_client.hpp"

namespace hookd::net {

// What a transfer observed on the wire, beyond libcurl's result code.
struct WireFacts {
  bool request_started = false;        // libcurl began sending the request
  bool resend_refused = false;         // libcurl wanted to resend it; refused
  bool all_addresses_refused = false;  // the AddressGuard refused and no socket was opened
};

// Classifies how an attempt ended (pure; CURLE_OK is kNone).
TransportError classify(CURLcode code, const WireFacts& facts);

class Transfer {
 public:
  // Builds the easy handle. If the request is invalid, `ready()` is false and `finish()`
  // reports kInvalidRequest without touching the network.
  Transfer(OutboundRequest request, HttpClient::Done done, const HttpClientOptions& options);
  ~Transfer();
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  bool ready() const { return easy_ != nullptr && invalid_reason_.empty(); }
  CURL* easy() const { return easy_; }

  // Builds the result from libcurl's code and calls `done` (once).
  void finish(CURLcode code);
  // Calls `done` with kCancelled (once).
  void cancel();
  // When the total timeout has passed (measured from construction, i.e. send()).
  std::chrono::steady_clock::time_point deadline() const { return started_at_ + total_timeout_; }
  // True while no request byte was sent (e.g. still waiting for a pool connection).
  bool waiting_for_connection() const { return requests_started_ == 0; }
  // Calls `done` with kConnectTimeout: the deadline passed while waiting for a connection.
  void expire();

 private:
  static curl_socket_t open_socket(void* self, curlsocktype purpose, curl_sockaddr* address);
  static int before_request(void* self, char* primary_ip, char* local_ip, int primary_port,
                            int local_port);
  static size_t on_header(char* data, size_t size, size_t count, void* self);
  static size_t on_body(char* data, size_t size, size_t count, void* self);
  static size_t on_upload(char* buffer, size_t size, size_t count, void* self);
  bool keep_body(std::string_view part);

  void configure(const HttpClientOptions& options);
  bool configure_method();
  bool configure_headers();
  AttemptResult build_result(CURLcode code);
  void deliver(AttemptResult result);

  OutboundRequest request_;
  HttpClient::Done done_;
  const AddressGuard* guard_ = nullptr;
  std::size_t body_limit_ = 0;
  std::size_t drain_limit_ = 0;
  std::chrono::milliseconds total_timeout_{0};
  CURL* easy_ = nullptr;
  curl_slist* header_list_ = nullptr;
  char error_buffer_[CURL_ERROR_SIZE] = {};
  std::string invalid_reason_;

  // What happened on the wire, filled by the callbacks.
  int requests_started_ = 0;  // times libcurl was about to send the request
  bool resend_refused_ = false;
  int addresses_refused_ = 0;  // by the AddressGuard
  int sockets_opened_ = 0;
  std::string guard_reason_;
  HeaderList headers_;
  std::string body_;
  std::optional<BodySpool> spool_;  // instead of body_ when the request asked for spooling
  std::string spool_error_;
  std::uint64_t upload_offset_ = 0;  // of body_file
  std::size_t body_bytes_seen_ = 0;
  bool drain_exceeded_ = false;
  std::chrono::steady_clock::time_point started_at_ = std::chrono::steady_clock::now();
};

}  // namespace hookd::net
