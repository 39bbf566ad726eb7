// Tests of HttpClient's safety properties: one request on the wire per attempt (A09, A25)
// and the SSRF address guard (A32).
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "net/body_spool.hpp"
#include "net/http_client_fixture.hpp"
#include "net/http_client_guard.hpp"

namespace hookd::net {
namespace {

// A25 + A09: the receiver processed the request and lost the connection; the client
// reports it and sends nothing more.
TEST_F(HttpClientTest, ProcessThenDropIsOneRequestOnTheWire) {
  receiver_.set_default(ReceiverBehavior::process_then_drop());
  OutboundRequest request = post("/drop");
  request.headers.emplace_back("webhook-id", "msg_drop");

  AttemptResult result = send_and_wait(client(), request);

  EXPECT_EQ(result.error, TransportError::kConnectionClosed) << result.error_detail;
  EXPECT_TRUE(result.request_sent);
  EXPECT_EQ(receiver_.request_count(), 1u);
  EXPECT_EQ(receiver_.processed_count(), 1u);
  EXPECT_EQ(receiver_.count_for_webhook_id("msg_drop"), 1u);
}

// A09: on a reused keep-alive connection libcurl would silently resend the request on a
// fresh connection (it assumes a stale connection). The client refuses that resend.
TEST_F(HttpClientTest, ProcessThenDropOnReusedConnectionIsNotResent) {
  HttpClient& http = client();
  ASSERT_TRUE(send_and_wait(http, post("/warm")).ok());  // opens the keep-alive connection
  receiver_.enqueue("/drop", ReceiverBehavior::process_then_drop());
  OutboundRequest request = post("/drop", std::string(2000, 'b'));
  request.headers.emplace_back("webhook-id", "msg_reused");

  AttemptResult result = send_and_wait(http, request);

  // A resend would have been answered 200 (the one-shot drop was used up).
  EXPECT_EQ(result.error, TransportError::kConnectionClosed) << result.error_detail;
  EXPECT_EQ(receiver_.count_for_webhook_id("msg_reused"), 1u);
  EXPECT_EQ(receiver_.processed_for_webhook_id("msg_reused"), 1u);
  EXPECT_EQ(receiver_.request_count(), 2u);
  EXPECT_EQ(receiver_.connection_count(), 1u);  // not even a fresh connection was opened
}

// A09 with a body streamed from a spool file (the idempotency gateway's large requests): a
// resend would need a rewind, which the client does not offer; still one request on the wire.
TEST_F(HttpClientTest, StreamedBodyOnReusedConnectionIsNotResent) {
  HttpClient& http = client();
  ASSERT_TRUE(send_and_wait(http, post("/warm")).ok());
  receiver_.enqueue("/drop", ReceiverBehavior::process_then_drop());
  BodySpool spool("", 16);
  ASSERT_TRUE(spool.append(std::string(200'000, 's')).has_value());
  OutboundRequest request = post("/drop", "");
  request.body_file = spool.finish_file();
  request.headers.emplace_back("webhook-id", "msg_streamed");

  AttemptResult result = send_and_wait(http, request);

  EXPECT_EQ(result.error, TransportError::kConnectionClosed) << result.error_detail;
  EXPECT_TRUE(result.request_sent);
  EXPECT_EQ(receiver_.count_for_webhook_id("msg_streamed"), 1u);
  EXPECT_EQ(receiver_.request_count(), 2u);
  EXPECT_EQ(receiver_.requests().back().body, std::string(200'000, 's'));
}

// A09: with a second idle connection in the pool, libcurl's resend would reuse it without
// opening a socket; the pre-request guard refuses that path too.
TEST_F(HttpClientTest, ResendOverAnotherPooledConnectionIsRefused) {
  HttpClient& http = client();
  receiver_.set_path("/warm", ReceiverBehavior::respond(200).after(100ms));
  std::promise<void> first_done, second_done;
  http.send(post("/warm"), [&](AttemptResult) { first_done.set_value(); });
  http.send(post("/warm"), [&](AttemptResult) { second_done.set_value(); });
  first_done.get_future().wait();
  second_done.get_future().wait();
  ASSERT_EQ(receiver_.connection_count(), 2u);  // two idle connections in the pool
  receiver_.enqueue("/drop", ReceiverBehavior::process_then_drop());
  OutboundRequest request = post("/drop");
  request.headers.emplace_back("webhook-id", "msg_pooled");

  AttemptResult result = send_and_wait(http, request);

  EXPECT_EQ(result.error, TransportError::kConnectionClosed) << result.error_detail;
  EXPECT_EQ(receiver_.count_for_webhook_id("msg_pooled"), 1u);
  EXPECT_EQ(receiver_.request_count(), 3u);
}

TEST_F(HttpClientTest, BodylessRequestOnReusedConnectionIsNotResentEither) {  // A09
  HttpClient& http = client();
  ASSERT_TRUE(send_and_wait(http, post("/warm")).ok());
  receiver_.enqueue("/reset", ReceiverBehavior::reset());
  OutboundRequest request;
  request.method = "DELETE";
  request.url = receiver_.url("/reset");

  AttemptResult result = send_and_wait(http, request);

  EXPECT_FALSE(result.ok());
  EXPECT_TRUE(result.error == TransportError::kConnectionClosed ||
              result.error == TransportError::kReset)
      << to_string(result.error) << ": " << result.error_detail;
  EXPECT_EQ(receiver_.request_count(), 2u);
}

// The server closed the idle keep-alive connection before the next request: libcurl sees
// the dead connection before sending and opens a new one; one request on the wire.
TEST_F(HttpClientTest, IdleConnectionClosedByServerIsReplacedNotResent) {  // A09
  HttpClient& http = client();
  receiver_.enqueue("/first", ReceiverBehavior::respond(200).closing());
  ASSERT_TRUE(send_and_wait(http, post("/first")).ok());
  for (int i = 0; i < 500 && receiver_.closed_connection_count() < 1; ++i) {
    std::this_thread::sleep_for(2ms);
  }
  ASSERT_EQ(receiver_.closed_connection_count(), 1u);

  AttemptResult second = send_and_wait(http, post("/second"));

  EXPECT_TRUE(second.ok()) << to_string(second.error) << ": " << second.error_detail;
  EXPECT_EQ(receiver_.request_count(), 2u);
  EXPECT_EQ(receiver_.connection_count(), 2u);
}

// A32: the guard sees the resolved address before any connection is made.
TEST_F(HttpClientTest, GuardRefusingLoopbackIsSsrfErrorAndNoConnection) {
  std::mutex seen_mutex;
  std::vector<std::string> seen;
  HttpClientOptions options;
  options.address_guard = [&](const sockaddr* address, socklen_t) {
    char text[INET6_ADDRSTRLEN] = {};
    if (address->sa_family == AF_INET) {
      inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text,
                sizeof text);
    } else if (address->sa_family == AF_INET6) {
      inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text,
                sizeof text);
    }
    std::lock_guard lock(seen_mutex);
    seen.emplace_back(text);
    return AddressVerdict{.allowed = false, .reason = std::string("loopback refused: ") + text};
  };
  HttpClient& http = client(std::move(options));
  OutboundRequest by_name = post("/");
  by_name.url = "http://localhost:" + std::to_string(receiver_.port()) + "/";

  AttemptResult direct = send_and_wait(http, post("/"));
  AttemptResult named = send_and_wait(http, by_name);

  EXPECT_EQ(direct.error, TransportError::kSsrfRefused);
  EXPECT_EQ(direct.error_detail, "loopback refused: 127.0.0.1");
  EXPECT_FALSE(direct.request_sent);
  EXPECT_EQ(named.error, TransportError::kSsrfRefused) << named.error_detail;
  EXPECT_EQ(receiver_.connection_count(), 0u);
  EXPECT_EQ(receiver_.request_count(), 0u);
  std::lock_guard lock(seen_mutex);
  EXPECT_GE(seen.size(), 2u);
  EXPECT_EQ(seen.front(), "127.0.0.1");
}

TEST_F(HttpClientTest, GuardAllowingAddressLetsTheRequestThrough) {
  std::atomic<int> checked{0};
  HttpClientOptions options;
  options.address_guard = [&](const sockaddr*, socklen_t) {
    ++checked;
    return AddressVerdict{};
  };

  AttemptResult result = send_and_wait(client(std::move(options)), post("/"));

  EXPECT_TRUE(result.ok());
  EXPECT_EQ(checked.load(), 1);
}

// A32 with the real policy: loopback (by address, by name, as IPv4-mapped IPv6) is refused
// unless its subnet is allow-listed.
TEST_F(HttpClientTest, PolicyGuardRefusesLoopbackUnlessAllowListed) {
  HttpClientOptions strict;
  strict.address_guard = make_address_guard(AddressPolicy{});
  HttpClient strict_client(strict);
  strict_client.start();
  std::string port = std::to_string(receiver_.port());
  for (std::string url : {"http://127.0.0.1:" + port + "/", "http://localhost:" + port + "/",
                          "http://[::ffff:127.0.0.1]:" + port + "/", "http://127.1:" + port + "/",
                          "http://2130706433:" + port + "/"}) {
    OutboundRequest request = post("/");
    request.url = url;
    AttemptResult result = send_and_wait(strict_client, request);
    EXPECT_EQ(result.error, TransportError::kSsrfRefused) << url << ": " << result.error_detail;
  }
  EXPECT_EQ(receiver_.connection_count(), 0u);

  auto allow = AddressPolicy::from_strings(std::vector<std::string>{"127.0.0.0/8"});
  ASSERT_TRUE(allow.has_value());
  HttpClientOptions allow_listed;
  allow_listed.address_guard = make_address_guard(*allow);
  AttemptResult result = send_and_wait(client(allow_listed), post("/"));
  EXPECT_TRUE(result.ok()) << to_string(result.error) << ": " << result.error_detail;
  EXPECT_EQ(receiver_.request_count(), 1u);
}

}  // namespace
}  // namespace hookd::net
