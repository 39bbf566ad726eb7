// Tests of the classification of libcurl's result codes into TransportError (pure).
#include <gtest/gtest.h>

#include "net/http_client_transfer.hpp"

namespace hookd::net {
namespace {

TEST(HttpClientClassify, MapsLibcurlCodes) {
  WireFacts before_send;
  WireFacts after_send{
      .request_started = true, .resend_refused = false, .all_addresses_refused = false};
  WireFacts guarded{
      .request_started = false, .resend_refused = false, .all_addresses_refused = true};
  WireFacts resend{.request_started = true, .resend_refused = true, .all_addresses_refused = false};

  EXPECT_EQ(classify(CURLE_OK, before_send), TransportError::kNone);
  EXPECT_EQ(classify(CURLE_COULDNT_RESOLVE_HOST, before_send), TransportError::kDnsFailure);
  EXPECT_EQ(classify(CURLE_COULDNT_CONNECT, before_send), TransportError::kConnectRefused);
  EXPECT_EQ(classify(CURLE_COULDNT_CONNECT, guarded), TransportError::kSsrfRefused);
  EXPECT_EQ(classify(CURLE_OPERATION_TIMEDOUT, before_send), TransportError::kConnectTimeout);
  EXPECT_EQ(classify(CURLE_OPERATION_TIMEDOUT, after_send), TransportError::kTimeout);
  EXPECT_EQ(classify(CURLE_RECV_ERROR, after_send), TransportError::kReset);
  EXPECT_EQ(classify(CURLE_SEND_ERROR, after_send), TransportError::kReset);
  EXPECT_EQ(classify(CURLE_GOT_NOTHING, after_send), TransportError::kConnectionClosed);
  EXPECT_EQ(classify(CURLE_COULDNT_CONNECT, resend), TransportError::kConnectionClosed);
  EXPECT_EQ(classify(CURLE_ABORTED_BY_CALLBACK, resend), TransportError::kConnectionClosed);
  EXPECT_EQ(classify(CURLE_UNSUPPORTED_PROTOCOL, before_send), TransportError::kInvalidRequest);
  EXPECT_EQ(classify(CURLE_UNSUPPORTED_PROTOCOL, after_send), TransportError::kProtocol);
  EXPECT_EQ(classify(CURLE_WEIRD_SERVER_REPLY, after_send), TransportError::kProtocol);
  EXPECT_EQ(classify(CURLE_SSL_CONNECT_ERROR, before_send), TransportError::kTls);
  EXPECT_EQ(classify(CURLE_PEER_FAILED_VERIFICATION, before_send), TransportError::kTls);
  EXPECT_EQ(classify(CURLE_OUT_OF_MEMORY, after_send), TransportError::kOther);
}

}  // namespace
}  // namespace hookd::net
