// Tests of HttpClient against TestReceiver: round trips, statuses, transport errors.
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "net/http_client_fixture.hpp"

namespace hookd::net {
namespace {

TEST_F(HttpClientTest, RoundTripSendsExactBodyAndHeaders) {
  std::string body = "{\"a\":1}\0\xff\xfe binary \r\n tail"s;
  body += std::string(1000, 'z');
  receiver_.set_path("/hook", ReceiverBehavior::respond(200, "thanks", {{"X-Reply", "yes"}}));
  OutboundRequest request = post("/hook", body);
  request.headers.emplace_back("webhook-id", "msg_1");
  request.headers.emplace_back("X-Empty", "");

  AttemptResult result = send_and_wait(client(), request);

  ASSERT_TRUE(result.ok()) << to_string(result.error) << ": " << result.error_detail;
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.body, "thanks");
  EXPECT_FALSE(result.truncated);
  EXPECT_EQ(result.header("x-reply"), "yes");
  EXPECT_TRUE(result.request_sent);
  auto requests = receiver_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].path, "/hook");
  EXPECT_EQ(requests[0].body, body);
  EXPECT_EQ(requests[0].header("content-type"), "application/json");
  EXPECT_EQ(requests[0].header("webhook-id"), "msg_1");
  EXPECT_EQ(requests[0].header("x-empty"), "");
  EXPECT_EQ(requests[0].header("content-length"), std::to_string(body.size()));
  EXPECT_FALSE(requests[0].header("expect").has_value());  // no 100-continue round trip
  EXPECT_EQ(receiver_.count_for_webhook_id("msg_1"), 1u);
}

TEST_F(HttpClientTest, OtherMethodsAndNoInventedContentType) {
  HttpClient& http = client();
  OutboundRequest get;
  get.method = "GET";
  get.url = receiver_.url("/status?x=1");
  OutboundRequest put = post("/put", "payload");
  put.method = "PUT";
  put.headers.clear();

  EXPECT_TRUE(send_and_wait(http, get).ok());
  EXPECT_TRUE(send_and_wait(http, put).ok());

  auto requests = receiver_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/status?x=1");
  EXPECT_EQ(requests[0].body, "");
  EXPECT_EQ(requests[1].method, "PUT");
  EXPECT_EQ(requests[1].body, "payload");
  EXPECT_FALSE(requests[1].header("content-type").has_value());
}

TEST_F(HttpClientTest, StatusIsPassedThroughAndRedirectIsNotFollowed) {
  receiver_.set_path("/moved", ReceiverBehavior::respond(302, "", {{"Location", "/target"}}));
  receiver_.set_path("/busy", ReceiverBehavior::respond(503, "later", {{"Retry-After", "7"}}));
  HttpClient& http = client();

  AttemptResult moved = send_and_wait(http, post("/moved"));
  AttemptResult busy = send_and_wait(http, post("/busy"));

  EXPECT_TRUE(moved.ok());
  EXPECT_EQ(moved.status, 302);
  EXPECT_EQ(moved.header("Location"), "/target");
  EXPECT_TRUE(busy.ok());  // a status is not a transport error; the policy judges it
  EXPECT_EQ(busy.status, 503);
  EXPECT_EQ(busy.header("retry-after"), "7");
  EXPECT_EQ(busy.body, "later");
  EXPECT_EQ(receiver_.request_count(), 2u);  // /target never requested
}

TEST_F(HttpClientTest, ClosedPortIsConnectRefused) {
  LoopbackSocket bound_only;  // bound but never listening: connecting is refused
  OutboundRequest request;
  request.url = bound_only.url();

  AttemptResult result = send_and_wait(client(), request);

  EXPECT_EQ(result.error, TransportError::kConnectRefused) << result.error_detail;
  EXPECT_EQ(result.status, 0);
  EXPECT_FALSE(result.request_sent);
}

// A listener whose accept queue is full drops new SYNs: the connect never completes.
TEST_F(HttpClientTest, UnansweredConnectIsConnectTimeout) {  // A01 (timing out)
  LoopbackSocket listener;
  ASSERT_EQ(::listen(listener.fd, 0), 0);
  std::vector<int> fillers;
  for (int i = 0; i < 3; ++i) {  // fill the accept queue (never accepted)
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ::connect(fd, reinterpret_cast<const sockaddr*>(&listener.address), sizeof listener.address);
    fillers.push_back(fd);
  }
  std::this_thread::sleep_for(50ms);
  OutboundRequest request;
  request.url = listener.url();
  request.connect_timeout = 200ms;

  AttemptResult result = send_and_wait(client(), request);
  for (int fd : fillers) ::close(fd);

  EXPECT_EQ(result.error, TransportError::kConnectTimeout) << result.error_detail;
  EXPECT_FALSE(result.request_sent);
}

TEST_F(HttpClientTest, HangingReceiverHitsTotalTimeout) {  // A01 (timing out)
  receiver_.set_default(ReceiverBehavior::hang());
  OutboundRequest request = post("/slow");
  request.total_timeout = 300ms;

  AttemptResult result = send_and_wait(client(), request);

  EXPECT_EQ(result.error, TransportError::kTimeout) << result.error_detail;
  EXPECT_TRUE(result.request_sent);
  EXPECT_EQ(receiver_.request_count(), 1u);
  EXPECT_EQ(receiver_.processed_count(), 0u);
}

TEST_F(HttpClientTest, ResetIsAnError) {  // A01 (resetting the connection)
  receiver_.set_default(ReceiverBehavior::reset());

  AttemptResult result = send_and_wait(client(), post("/reset"));

  EXPECT_EQ(result.error, TransportError::kReset) << result.error_detail;
  EXPECT_EQ(receiver_.request_count(), 1u);
}

// https:// to a peer that answers plain HTTP: the TLS handshake fails.
TEST_F(HttpClientTest, HandshakeWithAPlainHttpPeerIsATlsError) {
  LoopbackSocket listener;
  ASSERT_EQ(::listen(listener.fd, 4), 0);
  std::thread plain_peer([fd = listener.fd] {
    int connection = ::accept(fd, nullptr, nullptr);
    std::string_view answer = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
    ::send(connection, answer.data(), answer.size(), MSG_NOSIGNAL);
    std::this_thread::sleep_for(100ms);
    ::close(connection);
  });
  OutboundRequest request;
  request.url = listener.url("https");

  AttemptResult result = send_and_wait(client(), request);
  plain_peer.join();

  EXPECT_EQ(result.error, TransportError::kTls) << result.error_detail;
  EXPECT_FALSE(result.request_sent);
}

TEST_F(HttpClientTest, GarbageIsAProtocolError) {
  receiver_.set_default(ReceiverBehavior::garbage());

  AttemptResult result = send_and_wait(client(), post("/garbage"));

  EXPECT_EQ(result.error, TransportError::kProtocol) << result.error_detail;
}

TEST_F(HttpClientTest, ResponseBodyIsTruncatedToTheLimit) {
  receiver_.set_path("/big", ReceiverBehavior::respond(200, std::string(10000, 'x')));
  receiver_.set_path("/huge", ReceiverBehavior::respond(500, std::string(300000, 'y')));
  receiver_.set_path("/small", ReceiverBehavior::respond(200, "small"));
  HttpClient& http = client(limits(4096, 64 * 1024));

  AttemptResult big = send_and_wait(http, post("/big"));
  AttemptResult huge = send_and_wait(http, post("/huge"));  // cut after the drain limit
  AttemptResult small = send_and_wait(http, post("/small"));

  EXPECT_TRUE(big.ok());
  EXPECT_EQ(big.body, std::string(4096, 'x'));
  EXPECT_TRUE(big.truncated);
  EXPECT_TRUE(huge.ok()) << huge.error_detail;
  EXPECT_EQ(huge.status, 500);
  EXPECT_EQ(huge.body, std::string(4096, 'y'));
  EXPECT_TRUE(huge.truncated);
  EXPECT_TRUE(small.ok());
  EXPECT_EQ(small.body, "small");
  EXPECT_FALSE(small.truncated);
}

TEST_F(HttpClientTest, InvalidRequestsNeverReachTheNetwork) {
  HttpClient& http = client();
  OutboundRequest ftp = post("/");
  ftp.url = "ftp://127.0.0.1:" + std::to_string(receiver_.port()) + "/";
  OutboundRequest injected = post("/");
  injected.headers.emplace_back("X-Bad", "a\r\nInjected: yes");
  OutboundRequest bad_method = post("/");
  bad_method.method = "PO ST";
  OutboundRequest no_url;

  EXPECT_EQ(send_and_wait(http, ftp).error, TransportError::kInvalidRequest);
  EXPECT_EQ(send_and_wait(http, injected).error, TransportError::kInvalidRequest);
  EXPECT_EQ(send_and_wait(http, bad_method).error, TransportError::kInvalidRequest);
  EXPECT_EQ(send_and_wait(http, no_url).error, TransportError::kInvalidRequest);
  EXPECT_EQ(receiver_.connection_count(), 0u);
}

}  // namespace
}  // namespace hookd::net
