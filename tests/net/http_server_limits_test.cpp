// A33 at unit level: oversized bodies (413), huge headers (431), long targets (414), garbage
// on the socket (400), slow clients and idle connections (closed after their timeouts) and
// too many connections (503) are refused without harm to other connections.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>
#include <thread>

#include "http_server_test_support.hpp"

namespace hookd::net::testing {
namespace {

using namespace std::chrono_literals;

void expect_problem(const std::optional<RawResponse>& response, int status) {
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, status);
  EXPECT_EQ(response->headers.get("content-type"), "application/problem+json");
  EXPECT_EQ(response->headers.get("connection"), "close");
  auto json = nlohmann::json::parse(response->body);
  EXPECT_EQ(json["status"], status);
  EXPECT_TRUE(json.contains("type") && json.contains("title") && json.contains("detail"));
}

// A normal keep-alive client still gets answers after the hostile one was refused.
void expect_served(RawHttpClient& client) {
  auto response = client.request(post_request("/ok", "fine"));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "POST /ok fine");
}

TEST_F(HttpServerTest, A33_ContentLengthAboveTheLimitGets413BeforeTheBodyIsRead) {
  start();  // default limit 1 MiB
  RawHttpClient bystander(port());
  expect_served(bystander);
  RawHttpClient client(port());
  ASSERT_TRUE(client.send(
      "POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: 2097152\r\nExpect: 100-continue\r\n\r\n"));
  expect_problem(client.read_response(), 413);  // no 100 Continue first, no body sent
  EXPECT_TRUE(client.closed_by_peer());
  expect_served(bystander);
}

TEST_F(HttpServerTest, A33_BodyExactlyAtTheLimitIsAccepted) {
  start({.max_body_bytes = 4096});
  RawHttpClient client(port());
  auto response = client.request(post_request("/edge", std::string(4096, 'x')));
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  response = client.request(post_request("/edge", std::string(4097, 'x')));
  expect_problem(response, 413);
}

TEST_F(HttpServerTest, A33_ChunkedBodyAboveTheLimitGets413) {
  start({.max_body_bytes = 64 * 1024});
  RawHttpClient client(port());
  std::string request = "POST /chunked HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
  std::string chunk(8 * 1024, 'c');
  for (int i = 0; i < 12; ++i) request += "2000\r\n" + chunk + "\r\n";  // 96 KiB in all
  request += "0\r\n\r\n";
  ASSERT_TRUE(client.send(request));
  expect_problem(client.read_response(), 413);
  EXPECT_TRUE(client.closed_by_peer());
}

TEST_F(HttpServerTest, A33_ChunkedBodyWithinTheLimitArrivesWhole) {
  start();
  RawHttpClient client(port());
  auto response = client.request(
      "POST /chunked HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->body, "POST /chunked hello world");
}

TEST_F(HttpServerTest, A33_HugeHeadersGet431) {
  start();  // default limit 16 KiB
  RawHttpClient bystander(port());
  expect_served(bystander);
  RawHttpClient client(port());
  expect_problem(
      client.request(get_request("/h", "X-Big: " + std::string(20 * 1024, 'h') + "\r\n")), 431);
  EXPECT_TRUE(client.closed_by_peer());
  RawHttpClient many(port());
  std::string fields;
  for (int i = 0; i < 2000; ++i) fields += "X-F" + std::to_string(i) + ": v\r\n";
  expect_problem(many.request(get_request("/h", fields)), 431);
  expect_served(bystander);
}

TEST_F(HttpServerTest, A33_LongTargetGets414) {
  start({.max_target_bytes = 1024});
  RawHttpClient client(port());
  expect_problem(client.request(get_request("/" + std::string(2000, 'p'))), 414);
}

TEST_F(HttpServerTest, A33_GarbageGets400AndOtherConnectionsAreUnaffected) {
  start();
  RawHttpClient bystander(port());
  expect_served(bystander);
  const std::string garbage_inputs[] = {
      std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15),  // a TLS hello
      "GARBAGE\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n",
      "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx",
      "POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "GET / HTTP/1.1\r\nHost: t\r\nBad Header Name: x\r\n\r\n",
  };
  for (const auto& garbage : garbage_inputs) {
    RawHttpClient client(port());
    ASSERT_TRUE(client.send(garbage));
    auto response = client.read_response();
    ASSERT_TRUE(response) << garbage;
    EXPECT_EQ(response->status, 400) << garbage;
    EXPECT_TRUE(client.closed_by_peer()) << garbage;
  }
  expect_served(bystander);
}

TEST_F(HttpServerTest, A33_SlowClientIsClosedAfterTheReadTimeoutWhileOthersAreServed) {
  start({.request_read_timeout = 500ms});
  RawHttpClient slow(port());
  ASSERT_TRUE(slow.send("POST /slow HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\npartial"));
  RawHttpClient normal(port());
  for (int i = 0; i < 3; ++i) expect_served(normal);
  EXPECT_TRUE(slow.closed_by_peer());  // within the client's 10 s receive timeout
  expect_served(normal);
}

TEST_F(HttpServerTest, A33_SlowlorisTrickleIsClosedAfterTheReadTimeout) {
  start({.request_read_timeout = 500ms});
  RawHttpClient trickle(port());
  std::string request = get_request("/", "X-Pad: " + std::string(1000, 'p') + "\r\n");
  // One byte every 20 ms would take 20 s in all; the server must cut it off long before.
  std::size_t sent = 0;
  auto give_up = std::chrono::steady_clock::now() + 8s;
  while (sent < request.size() && std::chrono::steady_clock::now() < give_up) {
    if (!trickle.send(std::string_view(request).substr(sent, 1))) break;
    ++sent;
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_LT(sent, request.size());
  EXPECT_TRUE(trickle.closed_by_peer());
}

TEST_F(HttpServerTest, A33_ConnectionThatNeverSendsIsClosedAfterTheReadTimeout) {
  start({.request_read_timeout = 200ms});
  RawHttpClient silent(port());
  EXPECT_TRUE(silent.closed_by_peer());
}

TEST_F(HttpServerTest, IdleKeepAliveConnectionIsClosedAfterTheIdleTimeout) {
  start({.idle_timeout = 200ms});
  RawHttpClient client(port());
  expect_served(client);
  EXPECT_TRUE(client.closed_by_peer());
}

TEST_F(HttpServerTest, A33_ConnectionsBeyondTheMaximumGet503) {
  start({.max_connections = 2});
  RawHttpClient first(port());
  RawHttpClient second(port());
  expect_served(first);
  expect_served(second);
  RawHttpClient third(port());
  auto refused = third.read_response();
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 503);  // at once, not queued (docs/configuration.md says so)
  EXPECT_EQ(refused->headers.get("content-type"), "application/problem+json");
  EXPECT_EQ(refused->headers.get("retry-after"), "1");
  EXPECT_TRUE(third.closed_by_peer());
  expect_served(first);
}

TEST_F(HttpServerTest, A33_RandomBytesNeverHurtTheServer) {
  start({.request_read_timeout = 500ms});
  RawHttpClient bystander(port());
  expect_served(bystander);  // from now on only the 60 s idle timeout applies to it
  std::mt19937 random(33);   // fixed seed: the same inputs every run
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(1, 4096);
  const std::string prefixes[] = {"", "GET / HTTP/1.1\r\n",
                                  "POST /x HTTP/1.1\r\nContent-Length: 5\r\n"};
  for (int i = 0; i < 60; ++i) {
    RawHttpClient client(port(), 5s);
    std::string bytes = prefixes[i % 3];
    for (int n = length(random); n > 0; --n) bytes.push_back(static_cast<char>(byte(random)));
    bytes += "\r\n\r\n";
    client.send(bytes);
    auto response = client.read_response();  // a 4xx or nothing (closed), never a hang
    if (response) {
      EXPECT_GE(response->status, 400) << i;
    }
  }
  expect_served(bystander);
}

TEST_F(HttpServerTest, ClientThatDoesNotReadItsResponseIsClosedAfterTheWriteTimeout) {
  start({.write_timeout = 200ms});
  RawHttpClient client(port());
  ASSERT_TRUE(client.send(get_request("/park/huge")));
  ASSERT_TRUE(parked_.wait_for(1));
  EXPECT_EQ(server_->open_connections(), 1u);
  // Far beyond the socket buffers, and the client never reads.
  parked_.take().second(text_response(200, std::string(64 * 1024 * 1024, 'w')));
  auto give_up = std::chrono::steady_clock::now() + 10s;
  while (server_->open_connections() > 0 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(server_->open_connections(), 0u);
}

}  // namespace
}  // namespace hookd::net::testing
