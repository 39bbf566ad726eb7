// Shared pieces of the HttpServer tests: a started server with a configurable handler and a
// place where asynchronous handlers park their Responders for the test to answer later.
// Thread-safety: ParkedResponders is safe to use from the handler and the test thread.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include "net/http_server.hpp"
#include "raw_http_client.hpp"

namespace hookd::net::testing {

// Requests whose answer the test gives later, from its own thread.
class ParkedResponders {
 public:
  void park(HttpRequest request, Responder respond) {
    std::lock_guard lock(mutex_);
    parked_.push_back({std::move(request), std::move(respond)});
    arrived_.notify_all();
  }
  // Waits (bounded) until `count` requests are parked.
  bool wait_for(std::size_t count, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex_);
    return arrived_.wait_for(lock, limit, [&] { return parked_.size() >= count; });
  }
  std::pair<HttpRequest, Responder> take() {
    std::lock_guard lock(mutex_);
    auto front = std::move(parked_.front());
    parked_.pop_front();
    return front;
  }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<std::pair<HttpRequest, Responder>> parked_;
};

inline HttpResponse text_response(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.headers.add("Content-Type", "text/plain");
  response.body = std::move(body);
  return response;
}

// Answers "<METHOD> <path> <body>" and echoes X-Echo; /park/* requests are parked.
class HttpServerTest : public ::testing::Test {
 protected:
  void start(HttpServerOptions options = {}) {
    server_ = std::make_unique<HttpServer>(
        std::move(options), [this](HttpRequest request, Responder respond) {
          if (request.path().starts_with("/park")) {
            parked_.park(std::move(request), std::move(respond));
            return;
          }
          auto response = text_response(
              200, request.method + " " + std::string(request.path()) + " " + request.body);
          if (auto echo = request.headers.get("x-echo")) {
            response.headers.add("X-Echo", std::string(*echo));
          }
          respond(std::move(response));
        });
    auto started = server_->start();
    ASSERT_TRUE(started.has_value()) << started.error().message;
    ASSERT_NE(server_->local_port(), 0);
  }
  void TearDown() override {
    if (server_) server_->stop(std::chrono::milliseconds(2'000));
  }
  std::uint16_t port() const { return server_->local_port(); }

  std::unique_ptr<HttpServer> server_;
  ParkedResponders parked_;
};

}  // namespace hookd::net::testing
