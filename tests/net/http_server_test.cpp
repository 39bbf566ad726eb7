// HttpServer behaviour on loopback: round trips, keep-alive, pipelining with asynchronous
// answers, 100-continue, lifecycle (bind errors, graceful stop), many connections.
// Limits and hostile input are in http_server_limits_test.cpp.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "http_server_test_support.hpp"

namespace hookd::net::testing {
namespace {

using namespace std::chrono_literals;

TEST_F(HttpServerTest, GetAndPostRoundTripOnAFreePort) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.connected());
  auto get = client.request(get_request("/hello?x=1", "X-Echo: raw  value\r\n"));
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 200);
  EXPECT_EQ(get->body, "GET /hello ");
  EXPECT_EQ(get->headers.get("x-echo"), "raw  value");
  std::string binary("\x00\x01\xff{\"a\":1}\r\n", 12);
  auto post = client.request(post_request("/in", binary));
  ASSERT_TRUE(post);
  EXPECT_EQ(post->body, "POST /in " + binary);  // the body is the exact bytes sent
}

TEST_F(HttpServerTest, RequestCarriesTargetHeadersAndRemoteAddress) {
  std::optional<HttpRequest> seen;
  server_ = std::make_unique<HttpServer>(HttpServerOptions{},
                                         [&](HttpRequest request, Responder respond) {
                                           seen = std::move(request);
                                           respond(text_response(204, ""));
                                         });
  ASSERT_TRUE(server_->start());
  RawHttpClient client(server_->local_port());
  auto response = client.request(
      post_request("/a%20b?q=x%2By", "{}", "Webhook-Id: msg_1\r\nwebhook-id: msg_2\r\n"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 204);
  EXPECT_FALSE(response->headers.contains("Content-Length"));
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->method, "POST");
  EXPECT_EQ(seen->path(), "/a%20b");
  EXPECT_EQ(seen->query_param("q"), "x+y");
  EXPECT_EQ(seen->headers.get_all("WEBHOOK-ID"), (std::vector<std::string_view>{"msg_1", "msg_2"}));
  EXPECT_EQ(seen->remote_address, "127.0.0.1");
  EXPECT_NE(seen->remote_port, 0);
  EXPECT_EQ(seen->version, 11);
}

TEST_F(HttpServerTest, KeepAliveReusesOneConnectionForSeveralRequests) {
  start();
  RawHttpClient client(port());
  for (int i = 0; i < 5; ++i) {
    auto response = client.request(post_request("/n", std::to_string(i)));
    ASSERT_TRUE(response) << i;
    EXPECT_EQ(response->body, "POST /n " + std::to_string(i));
    EXPECT_FALSE(response->headers.contains("Connection"));
  }
  EXPECT_EQ(server_->open_connections(), 1u);
}

TEST_F(HttpServerTest, ConnectionCloseAndHttp10CloseAfterTheResponse) {
  start();
  RawHttpClient closing(port());
  auto response = closing.request(get_request("/x", "Connection: close\r\n"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->headers.get("connection"), "close");
  EXPECT_TRUE(closing.closed_by_peer());

  RawHttpClient old(port());
  response = old.request("GET /old HTTP/1.0\r\n\r\n");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "GET /old ");
  EXPECT_TRUE(old.closed_by_peer());

  RawHttpClient old_keep(port());
  response = old_keep.request("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  ASSERT_TRUE(response);
  response = old_keep.request("GET /b HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "GET /b ");
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrderWhenTheFirstIsAnsweredLater) {
  start();
  RawHttpClient client(port());
  // The stray CRLF after the POST (some old clients send one) is ignored.
  ASSERT_TRUE(client.send(get_request("/park/first") + post_request("/second", "2") + "\r\n" +
                          get_request("/third")));
  ASSERT_TRUE(parked_.wait_for(1));
  auto [request, respond] = parked_.take();
  EXPECT_EQ(request.path(), "/park/first");
  std::thread answerer([respond = std::move(respond)]() mutable {
    respond(text_response(202, "first, answered from another thread"));
  });
  answerer.join();
  auto first = client.read_response();
  auto second = client.read_response();
  auto third = client.read_response();
  ASSERT_TRUE(first && second && third);
  EXPECT_EQ(first->status, 202);
  EXPECT_EQ(first->body, "first, answered from another thread");
  EXPECT_EQ(second->body, "POST /second 2");
  EXPECT_EQ(third->body, "GET /third ");
}

TEST_F(HttpServerTest, ExpectContinueGets100BeforeTheBody) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.send(
      "POST /c HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"));
  auto interim = client.read_response();
  ASSERT_TRUE(interim);
  EXPECT_EQ(interim->status, 100);
  ASSERT_TRUE(client.send("hello"));
  auto final_response = client.read_response();
  ASSERT_TRUE(final_response);
  EXPECT_EQ(final_response->body, "POST /c hello");
}

TEST_F(HttpServerTest, HeadResponseHasLengthButNoBody) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.send("HEAD /h HTTP/1.1\r\nHost: t\r\n\r\n" + get_request("/after")));
  auto head = client.read_response(/*has_body=*/false);
  ASSERT_TRUE(head);
  EXPECT_EQ(head->headers.get("content-length"), std::to_string(std::string("HEAD /h ").size()));
  auto next = client.read_response();  // follows the HEAD response's header directly
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "GET /after ");
}

TEST_F(HttpServerTest, DroppedResponderAnswers500) {
  server_ = std::make_unique<HttpServer>(HttpServerOptions{}, [](HttpRequest, Responder) {});
  ASSERT_TRUE(server_->start());
  RawHttpClient client(server_->local_port());
  auto response = client.request(get_request("/dropped"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 500);
  EXPECT_EQ(response->headers.get("content-type"), "application/problem+json");
}

TEST_F(HttpServerTest, StartOnAPortInUseReturnsAnError) {
  start();
  HttpServerOptions options;
  options.port = port();
  HttpServer second(options, [](HttpRequest, Responder respond) { respond({}); });
  auto started = second.start();
  ASSERT_FALSE(started.has_value());
  EXPECT_EQ(started.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(started.error().message.find("bind"), std::string::npos);
}

TEST_F(HttpServerTest, InvalidListenAddressIsAnError) {
  HttpServerOptions options;
  options.listen_address = "not-an-address";
  HttpServer server(options, [](HttpRequest, Responder respond) { respond({}); });
  auto started = server.start();
  ASSERT_FALSE(started.has_value());
  EXPECT_EQ(started.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(HttpServerTest, StopWaitsForAnInFlightAsynchronousResponse) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.send(get_request("/park/slow")));
  ASSERT_TRUE(parked_.wait_for(1));
  RawHttpClient idle(port());  // idle connections are closed at once
  std::thread stopper([this] { server_->stop(10s); });
  auto [request, respond] = parked_.take();
  std::this_thread::sleep_for(100ms);  // let stop() begin; the grace period is far longer
  respond(text_response(200, "finished during stop"));
  auto response = client.read_response();
  stopper.join();
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "finished during stop");
  EXPECT_EQ(response->headers.get("connection"), "close");
  EXPECT_TRUE(idle.closed_by_peer());
  EXPECT_FALSE(RawHttpClient(port()).connected());
}

TEST_F(HttpServerTest, StopClosesRequestsStillOpenAfterTheGracePeriod) {
  start();
  RawHttpClient client(port());
  ASSERT_TRUE(client.send(get_request("/park/never")));
  ASSERT_TRUE(parked_.wait_for(1));
  server_->stop(100ms);
  EXPECT_TRUE(client.closed_by_peer());
  auto [request, respond] = parked_.take();
  respond(text_response(200, "too late"));  // harmless after stop
  server_.reset();
}

TEST_F(HttpServerTest, ServesManyConcurrentConnections) {
  start();
  constexpr int kClients = 200;
  std::vector<std::unique_ptr<RawHttpClient>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<RawHttpClient>(port()));
    ASSERT_TRUE(clients.back()->connected());
    ASSERT_TRUE(clients.back()->send(post_request("/many", std::to_string(i))));
  }
  int served = 0;
  for (int i = 0; i < kClients; ++i) {
    auto response = clients[static_cast<std::size_t>(i)]->read_response();
    if (response && response->body == "POST /many " + std::to_string(i)) ++served;
  }
  EXPECT_EQ(served, kClients);
}

TEST_F(HttpServerTest, ManyThreadsWithKeepAliveAllServed) {
  start({.io_threads = 4});
  constexpr int kThreads = 8;
  constexpr int kRequests = 50;
  std::atomic<int> served{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      RawHttpClient client(port());
      for (int i = 0; i < kRequests; ++i) {
        auto body = std::to_string(t) + "-" + std::to_string(i);
        auto response = client.request(post_request("/t", body));
        if (response && response->body == "POST /t " + body) ++served;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(served.load(), kThreads * kRequests);
}

// Responders answered from several threads while stop() runs: every client either gets its
// answer or a closed connection, and nothing crashes or races (run under TSan too).
TEST_F(HttpServerTest, StopRacesWithRespondersFromOtherThreads) {
  start();
  constexpr int kClients = 40;
  std::vector<std::unique_ptr<RawHttpClient>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<RawHttpClient>(port()));
    ASSERT_TRUE(clients.back()->send(get_request("/park/" + std::to_string(i))));
  }
  ASSERT_TRUE(parked_.wait_for(kClients));
  std::vector<std::thread> answerers;
  for (int t = 0; t < 4; ++t) {
    std::vector<Responder> mine;
    for (int i = 0; i < kClients / 4; ++i) mine.push_back(parked_.take().second);
    answerers.emplace_back([mine = std::move(mine)]() mutable {
      for (auto& respond : mine) respond(text_response(200, "answered"));
    });
  }
  server_->stop(2s);
  for (auto& thread : answerers) thread.join();
  int answered = 0;
  for (auto& client : clients) {
    auto response = client->read_response();
    if (response) {
      EXPECT_EQ(response->body, "answered");
      ++answered;
    }
  }
  EXPECT_LE(answered, kClients);
}

}  // namespace
}  // namespace hookd::net::testing
