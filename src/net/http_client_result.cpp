// How an outbound attempt ended: libcurl's result code turned into an AttemptResult with a
// classified TransportError (see http_client_types.hpp), and the single call of `done`.
#include <cassert>
#include <utility>

#include "net/http_client_transfer.hpp"

namespace hookd::net {
namespace {

bool is_tls_error(CURLcode code) {
  switch (code) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_SHUTDOWN_FAILED:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CLIENTCERT:
    case CURLE_USE_SSL_FAILED:
      return true;
    default:
      return false;
  }
}

}  // namespace

TransportError classify(CURLcode code, const WireFacts& facts) {
  if (facts.resend_refused) return TransportError::kConnectionClosed;
  switch (code) {
    case CURLE_OK:
      return TransportError::kNone;
    case CURLE_UNSUPPORTED_PROTOCOL:  // a scheme we refuse, or an HTTP/0.9 answer
      return facts.request_started ? TransportError::kProtocol : TransportError::kInvalidRequest;
    case CURLE_URL_MALFORMAT:
      return TransportError::kInvalidRequest;
    case CURLE_COULDNT_RESOLVE_HOST:
      return TransportError::kDnsFailure;
    case CURLE_COULDNT_CONNECT:
      return facts.all_addresses_refused ? TransportError::kSsrfRefused
                                         : TransportError::kConnectRefused;
    case CURLE_OPERATION_TIMEDOUT:
      return facts.request_started ? TransportError::kTimeout : TransportError::kConnectTimeout;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
      return TransportError::kReset;
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SEND_FAIL_REWIND:  // libcurl wanted to resend a streamed body: refused
      return TransportError::kConnectionClosed;
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_BAD_CONTENT_ENCODING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return TransportError::kProtocol;
    default:
      return is_tls_error(code) ? TransportError::kTls : TransportError::kOther;
  }
}

AttemptResult Transfer::build_result(CURLcode code) {
  AttemptResult result;
  result.duration = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - started_at_);
  result.request_sent = requests_started_ > 0;
  long status = 0;
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
  result.status = static_cast<int>(status);
  result.headers = std::move(headers_);
  result.body = std::move(body_);
  if (spool_ && spool_->in_file()) {
    result.body_file = spool_->finish_file();
  } else if (spool_) {
    result.body = spool_->take_memory();
  }
  result.truncated = body_bytes_seen_ > body_limit_;

  // Cut on purpose after the drain limit: the status and headers are complete.
  if (code == CURLE_OK || (code == CURLE_WRITE_ERROR && drain_exceeded_)) return result;

  WireFacts facts{.request_started = requests_started_ > 0,
                  .resend_refused = resend_refused_,
                  .all_addresses_refused = sockets_opened_ == 0 && addresses_refused_ > 0};
  result.error = classify(code, facts);
  if (!spool_error_.empty()) {
    result.body_file = nullptr;
    result.error = TransportError::kOther;
    result.error_detail = "the response body could not be spooled: " + spool_error_;
  } else if (result.error == TransportError::kSsrfRefused) {
    result.error_detail = guard_reason_;
  } else if (resend_refused_) {
    result.error_detail = "connection closed before any response (libcurl's resend refused)";
  } else {
    result.error_detail = error_buffer_[0] != '\0' ? error_buffer_ : curl_easy_strerror(code);
  }
  return result;
}

void Transfer::finish(CURLcode code) {
  if (!invalid_reason_.empty()) {
    AttemptResult result;
    result.error = TransportError::kInvalidRequest;
    result.error_detail = invalid_reason_;
    deliver(std::move(result));
    return;
  }
  deliver(build_result(code));
}

void Transfer::cancel() {
  AttemptResult result;
  result.error = TransportError::kCancelled;
  result.error_detail = "HTTP client stopped";
  result.request_sent = requests_started_ > 0;
  result.duration = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - started_at_);
  deliver(std::move(result));
}

void Transfer::expire() {
  AttemptResult result;
  result.error = TransportError::kConnectTimeout;
  result.error_detail = "no connection within the total timeout (pool busy or connecting)";
  result.duration = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - started_at_);
  deliver(std::move(result));
}

void Transfer::deliver(AttemptResult result) {
  assert(done_ && "done called twice");
  auto done = std::move(done_);
  done_ = nullptr;
  done(std::move(result));
}

}  // namespace hookd::net
