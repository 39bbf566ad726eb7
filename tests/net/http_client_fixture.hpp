// Shared fixture of the HttpClient tests: a started TestReceiver on loopback, a client
// factory, a synchronous send, and small helpers.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <memory>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "net/http_client.hpp"
#include "support/test_receiver.hpp"

namespace hookd::net {

using namespace std::chrono_literals;
using namespace std::string_literals;
using hookd::testing::ReceiverBehavior;
using hookd::testing::TestReceiver;

inline void PrintTo(TransportError error, std::ostream* out) { *out << to_string(error); }

inline HttpClientOptions pool_of(long max_host_connections) {
  HttpClientOptions options;
  options.max_host_connections = max_host_connections;
  return options;
}

inline HttpClientOptions limits(std::size_t body_limit, std::size_t drain_limit) {
  HttpClientOptions options;
  options.body_limit = body_limit;
  options.drain_limit = drain_limit;
  return options;
}

// A TCP socket bound to 127.0.0.1 on an ephemeral port (not listening yet).
struct LoopbackSocket {
  int fd = -1;
  sockaddr_in address{};

  LoopbackSocket() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    ::bind(fd, reinterpret_cast<sockaddr*>(&address), length);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  }
  ~LoopbackSocket() { ::close(fd); }
  LoopbackSocket(const LoopbackSocket&) = delete;
  LoopbackSocket& operator=(const LoopbackSocket&) = delete;

  std::string url(std::string_view scheme = "http") const {
    return std::string(scheme) + "://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/";
  }
};

class HttpClientTest : public ::testing::Test {
 protected:
  void SetUp() override { receiver_.start(); }
  void TearDown() override {
    if (client_) client_->stop();
    receiver_.stop();
  }

  HttpClient& client(HttpClientOptions options = {}) {
    client_ = std::make_unique<HttpClient>(std::move(options));
    client_->start();
    return *client_;
  }

  static AttemptResult send_and_wait(HttpClient& client, OutboundRequest request) {
    auto promise = std::make_shared<std::promise<AttemptResult>>();
    auto future = promise->get_future();
    client.send(std::move(request),
                [promise](AttemptResult result) { promise->set_value(std::move(result)); });
    EXPECT_EQ(future.wait_for(20s), std::future_status::ready);
    return future.get();
  }

  OutboundRequest post(std::string_view path, std::string body = "{}") const {
    OutboundRequest request;
    request.url = receiver_.url(path);
    request.body = std::move(body);
    request.headers = {{"Content-Type", "application/json"}};
    return request;
  }

  TestReceiver receiver_;
  std::unique_ptr<HttpClient> client_;
};

}  // namespace hookd::net
