// Receiver: the HTTP handler of the inbound gateway, `POST /in/<source>` (and the CloudEvents
// webhook validation handshake, `OPTIONS /in/<source>`). For each request, in this order:
//   unknown source -> 404; other method -> 405; body over the source's limit -> 413;
//   verification on the raw bytes (constant time) fails -> 401 with a reason code, nothing
//   stored; event id / JSON fields unreadable -> 400; then the event is queued for the
//   InboxBatcher (group commit, INSERT ... ON CONFLICT DO NOTHING) and answered only after
//   the commit: 200 for new and duplicate events alike (A14), 503 when the store failed or
//   the queue is full (the sender retries; nothing was acknowledged).
// Transport-free: handle() takes a request and a Respond callable (tests call it directly).
// Thread-safety: handle() may be called concurrently from any thread; Respond may be called
// on the batcher's thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "inbound/inbound_metrics.hpp"
#include "inbound/inbox_batcher.hpp"
#include "inbound/source.hpp"
#include "net/http_types.hpp"
#include "ops/log.hpp"

namespace hookd::inbound {

using Respond = std::move_only_function<void(net::HttpResponse)>;

inline constexpr std::string_view kInboundPrefix = "/in/";

struct ReceiverDeps {
  std::map<std::string, std::shared_ptr<const Source>, std::less<>> sources;
  InboxBatcher& batcher;
  std::function<std::int64_t()> now_unix;  // seconds, for the replay window
  InboundMetrics* metrics = nullptr;
  const ops::Logger* logger = nullptr;
  int max_json_depth = 64;
};

class Receiver {
 public:
  explicit Receiver(ReceiverDeps deps) : deps_(std::move(deps)) {}

  void handle(net::HttpRequest request, Respond respond) const;

 private:
  void receive(const Source& source, net::HttpRequest request, Respond respond) const;
  net::HttpResponse handshake(const Source& source, const net::HttpRequest& request) const;
  void reject(std::string_view source, int status, std::string_view reason, std::string_view detail,
              Respond& respond) const;

  ReceiverDeps deps_;
};

// The headers kept with an inbox event: Content-Type, the source's forward.headers, and the
// CloudEvents attributes (ce-*) of a binary-mode event.
store::Headers kept_headers(const Source& source, const net::HttpHeaders& headers);

}  // namespace hookd::inbound
