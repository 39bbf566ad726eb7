// TestReceiver: a programmable HTTP/1.1 server on 127.0.0.1 (an ephemeral port) that
// plays a webhook receiver in tests: it answers a status (with any headers, e.g.
// Retry-After), delays, hangs, resets the connection, processes a request and then drops
// the connection without answering (A25), or answers garbage — per request, per path or by
// a handler. It records every request and counts requests, processed requests, accepted
// connections and requests per `webhook-id`.
// Plain POSIX sockets, one thread per connection (test loads only).
// Thread-safety: every method may be called from any thread; stop() unblocks hanging and
// delayed connections and joins all threads.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace hookd::testing {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct ReceivedRequest {
  std::string method;
  std::string target;  // as on the request line
  std::string path;    // target without the query
  std::string version;
  Headers headers;
  std::string body;
  std::size_t connection = 0;  // index of the accepted connection it came on (0-based)

  std::optional<std::string> header(std::string_view name) const;  // case-insensitive
};

enum class ReceiverAction {
  kRespond,          // answer status/headers/body (after `delay`)
  kHang,             // never answer (until stop())
  kReset,            // read the request, then reset the connection (RST), unprocessed
  kProcessThenDrop,  // read the request, count it processed, close without answering
  kGarbage,          // answer bytes that are not HTTP, then close
};

struct ReceiverBehavior {
  ReceiverAction action = ReceiverAction::kRespond;
  int status = 200;
  Headers headers;
  std::string body;
  std::chrono::milliseconds delay{0};  // waited before acting (stop() ends the wait)
  bool close_after = false;  // close the connection after answering, without announcing it

  static ReceiverBehavior respond(int status, std::string body = {}, Headers headers = {});
  static ReceiverBehavior hang();
  static ReceiverBehavior reset();
  static ReceiverBehavior process_then_drop();
  static ReceiverBehavior garbage();
  ReceiverBehavior after(std::chrono::milliseconds wait) const;
  ReceiverBehavior closing() const;
};

class TestReceiver {
 public:
  using Handler = std::function<ReceiverBehavior(const ReceivedRequest&)>;

  TestReceiver();
  ~TestReceiver();  // stops
  TestReceiver(const TestReceiver&) = delete;
  TestReceiver& operator=(const TestReceiver&) = delete;

  void start();  // binds and listens; port() is valid afterwards
  void stop();   // idempotent
  std::uint16_t port() const { return port_; }
  std::string url(std::string_view path = "/") const;

  // Which behaviour a request gets, first match wins: the handler; a one-shot behaviour
  // queued for its path; one queued for any path (path ""); the path's behaviour; the
  // default (200, empty body).
  void set_handler(Handler handler);
  void enqueue(std::string path, ReceiverBehavior behavior);
  void set_path(std::string path, ReceiverBehavior behavior);
  void set_default(ReceiverBehavior behavior);

  std::size_t request_count() const;            // complete requests read
  std::size_t processed_count() const;          // answered 2xx, or processed then dropped
  std::size_t connection_count() const;         // accepted connections
  std::size_t closed_connection_count() const;  // connections the receiver has closed
  std::size_t count_for_webhook_id(std::string_view id) const;
  std::size_t processed_for_webhook_id(std::string_view id) const;
  std::vector<ReceivedRequest> requests() const;
  // Waits until at least `count` requests arrived; false on timeout.
  bool wait_for_requests(std::size_t count, std::chrono::milliseconds timeout) const;

 private:
  void accept_loop();
  void serve(int fd, std::size_t connection);
  ReceiverBehavior choose(const ReceivedRequest& request);
  // Waits `delay` unless stopped first; true when stopped.
  bool wait_or_stopped(std::optional<std::chrono::milliseconds> delay);
  void record_arrival(const ReceivedRequest& request);
  void record_processed(const ReceivedRequest& request);
  void close_connection(int fd, bool reset);

  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread acceptor_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool stopping_ = false;
  std::vector<std::thread> connections_;
  std::set<int> open_fds_;
  Handler handler_;
  std::map<std::string, std::deque<ReceiverBehavior>> queued_;
  std::map<std::string, ReceiverBehavior> by_path_;
  ReceiverBehavior default_;
  std::vector<ReceivedRequest> requests_;
  std::size_t processed_ = 0;
  std::size_t accepted_ = 0;
  std::size_t closed_ = 0;
  std::map<std::string, std::size_t, std::less<>> by_webhook_id_;
  std::map<std::string, std::size_t, std::less<>> processed_by_webhook_id_;
};

}  // namespace hookd::testing
