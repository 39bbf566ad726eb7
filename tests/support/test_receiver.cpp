// TestReceiver: accept loop, per-connection threads, behaviour choice and counters
// (see test_receiver.hpp).
#include "support/test_receiver.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "support/test_receiver_wire.hpp"

namespace hookd::testing {

std::optional<std::string> ReceivedRequest::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (std::ranges::equal(key, name, [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        })) {
      return value;
    }
  }
  return std::nullopt;
}

ReceiverBehavior ReceiverBehavior::respond(int status, std::string body, Headers headers) {
  ReceiverBehavior behavior;
  behavior.status = status;
  behavior.body = std::move(body);
  behavior.headers = std::move(headers);
  return behavior;
}
namespace {
ReceiverBehavior with_action(ReceiverAction action) {
  ReceiverBehavior behavior;
  behavior.action = action;
  return behavior;
}
}  // namespace

ReceiverBehavior ReceiverBehavior::hang() { return with_action(ReceiverAction::kHang); }
ReceiverBehavior ReceiverBehavior::reset() { return with_action(ReceiverAction::kReset); }
ReceiverBehavior ReceiverBehavior::process_then_drop() {
  return with_action(ReceiverAction::kProcessThenDrop);
}
ReceiverBehavior ReceiverBehavior::garbage() { return with_action(ReceiverAction::kGarbage); }
ReceiverBehavior ReceiverBehavior::after(std::chrono::milliseconds wait) const {
  ReceiverBehavior copy = *this;
  copy.delay = wait;
  return copy;
}
ReceiverBehavior ReceiverBehavior::closing() const {
  ReceiverBehavior copy = *this;
  copy.close_after = true;
  return copy;
}

TestReceiver::TestReceiver() = default;
TestReceiver::~TestReceiver() { stop(); }

void TestReceiver::start() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(listen_fd_, 1024) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("TestReceiver: cannot listen on 127.0.0.1");
  }
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

void TestReceiver::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || listen_fd_ < 0) return;
    stopping_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);                   // unblocks accept()
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);  // unblocks recv()
  }
  changed_.notify_all();  // ends hangs and delays
  acceptor_.join();
  ::close(listen_fd_);
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    threads.swap(connections_);
  }
  for (auto& thread : threads) thread.join();
}

std::string TestReceiver::url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

void TestReceiver::accept_loop() {
  while (true) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    std::lock_guard lock(mutex_);
    if (stopping_) {
      if (fd >= 0) ::close(fd);
      return;
    }
    if (fd < 0) continue;
    open_fds_.insert(fd);
    std::size_t index = accepted_++;
    connections_.emplace_back([this, fd, index] { serve(fd, index); });
  }
}

void TestReceiver::serve(int fd, std::size_t connection) {
  std::string buffer;
  while (auto request = wire::read_request(fd, buffer)) {
    request->connection = connection;
    ReceiverBehavior behavior = choose(*request);
    record_arrival(*request);
    if (behavior.action == ReceiverAction::kHang) {
      wait_or_stopped(std::nullopt);
      break;
    }
    bool stopped = wait_or_stopped(behavior.delay);
    bool answered_ok = behavior.action == ReceiverAction::kRespond && behavior.status >= 200 &&
                       behavior.status < 300;
    if (!stopped && (answered_ok || behavior.action == ReceiverAction::kProcessThenDrop)) {
      record_processed(*request);
    }
    if (stopped) break;
    if (behavior.action == ReceiverAction::kReset) {
      close_connection(fd, true);
      return;
    }
    if (behavior.action == ReceiverAction::kGarbage) {
      wire::write_all(fd, "SPAM SPAM SPAM\r\n\r\nnot http at all\r\n");
    }
    if (behavior.action != ReceiverAction::kRespond) break;
    if (!wire::write_all(fd, wire::format_response(behavior))) break;
    if (behavior.close_after || wire::wants_close(*request)) break;
  }
  close_connection(fd, false);
}

ReceiverBehavior TestReceiver::choose(const ReceivedRequest& request) {
  std::unique_lock lock(mutex_);
  if (handler_) {
    Handler handler = handler_;
    lock.unlock();  // the handler may call the receiver
    return handler(request);
  }
  for (const std::string& key : {request.path, std::string()}) {
    auto queued = queued_.find(key);
    if (queued != queued_.end() && !queued->second.empty()) {
      ReceiverBehavior behavior = std::move(queued->second.front());
      queued->second.pop_front();
      return behavior;
    }
  }
  auto path = by_path_.find(request.path);
  return path != by_path_.end() ? path->second : default_;
}

bool TestReceiver::wait_or_stopped(std::optional<std::chrono::milliseconds> delay) {
  std::unique_lock lock(mutex_);
  if (!delay) {
    changed_.wait(lock, [this] { return stopping_; });
    return true;
  }
  return changed_.wait_for(lock, *delay, [this] { return stopping_; });
}

void TestReceiver::record_arrival(const ReceivedRequest& request) {
  {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
    if (auto id = request.header("webhook-id")) ++by_webhook_id_[*id];
  }
  changed_.notify_all();
}

void TestReceiver::record_processed(const ReceivedRequest& request) {
  std::lock_guard lock(mutex_);
  ++processed_;
  if (auto id = request.header("webhook-id")) ++processed_by_webhook_id_[*id];
}

void TestReceiver::close_connection(int fd, bool reset) {
  if (reset) {
    linger option{.l_onoff = 1, .l_linger = 0};  // close() then sends RST
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, sizeof option);
  }
  std::lock_guard lock(mutex_);  // stop() must not shut down a reused descriptor
  open_fds_.erase(fd);
  ::close(fd);
  ++closed_;
}

void TestReceiver::set_handler(Handler handler) {
  std::lock_guard lock(mutex_);
  handler_ = std::move(handler);
}
void TestReceiver::enqueue(std::string path, ReceiverBehavior behavior) {
  std::lock_guard lock(mutex_);
  queued_[std::move(path)].push_back(std::move(behavior));
}
void TestReceiver::set_path(std::string path, ReceiverBehavior behavior) {
  std::lock_guard lock(mutex_);
  by_path_[std::move(path)] = std::move(behavior);
}
void TestReceiver::set_default(ReceiverBehavior behavior) {
  std::lock_guard lock(mutex_);
  default_ = std::move(behavior);
}

std::size_t TestReceiver::request_count() const {
  std::lock_guard lock(mutex_);
  return requests_.size();
}
std::size_t TestReceiver::processed_count() const {
  std::lock_guard lock(mutex_);
  return processed_;
}
std::size_t TestReceiver::connection_count() const {
  std::lock_guard lock(mutex_);
  return accepted_;
}
std::size_t TestReceiver::closed_connection_count() const {
  std::lock_guard lock(mutex_);
  return closed_;
}
std::size_t TestReceiver::count_for_webhook_id(std::string_view id) const {
  std::lock_guard lock(mutex_);
  auto found = by_webhook_id_.find(id);
  return found == by_webhook_id_.end() ? 0 : found->second;
}
std::size_t TestReceiver::processed_for_webhook_id(std::string_view id) const {
  std::lock_guard lock(mutex_);
  auto found = processed_by_webhook_id_.find(id);
  return found == processed_by_webhook_id_.end() ? 0 : found->second;
}
std::vector<ReceivedRequest> TestReceiver::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}
bool TestReceiver::wait_for_requests(std::size_t count, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return requests_.size() >= count; });
}

}  // namespace hookd::testing
