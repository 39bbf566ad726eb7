// Gateway: the idempotency gateway, `/proxy/<name>/<rest>` → the proxy's upstream + `/<rest>`
// (SPEC §5, A13, docs/proxy.md). A keyed request (a configured method with an
// Idempotency-Key) happens upstream at most once:
//   1. its key is claimed durably (KeyCommitter) before anything is sent;
//   2. a key seen before answers without calling the upstream: the stored answer
//      (`Idempotent-Replayed: true`), 422 for another fingerprint, 409 while in progress, when
//      the outcome is unknown, or when the answer was not replayable;
//   3. the request is sent once (no retries); what came back decides the key's fate —
//      completed (stored), not_replayable (too big to keep), unknown (it may have run:
//      sent, then timeout / reset / cancelled), or released (nothing was sent, or 429/503 =
//      "not processed"); that is recorded durably before the answer goes back.
// Other methods, and keyed ones without a key when the key is optional, pass through.
// start() turns this owner's claims left by a crashed process into unknown keys.
//
// Thread-safety: handle() may be called concurrently from any thread and never blocks (the
// answer comes from the committer's or the client's thread). start()/stop() from the owner.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "hookd/result.hpp"
#include "net/http_sender.hpp"
#include "net/http_types.hpp"
#include "ops/alerts.hpp"
#include "ops/log.hpp"
#include "proxy/gateway_options.hpp"
#include "proxy/key_committer.hpp"
#include "proxy/proxy_metrics.hpp"
#include "store/store.hpp"

namespace hookd::proxy {

using Respond = std::move_only_function<void(net::HttpResponse)>;

struct GatewayDeps {
  store::ProxyKeyStore& store;
  net::HttpSender& sender;  // no retries, no SSRF guard (the upstream is the operator's)
  ProxyMetrics* metrics = nullptr;
  const ops::Logger* logger = nullptr;
  // Optional: key mismatches and unknown outcomes (also the ones found at start-up).
  ops::AlertSink* alerts = nullptr;
};

class Gateway {
 public:
  Gateway(GatewayOptions options, GatewayDeps deps);
  ~Gateway();
  Gateway(const Gateway&) = delete;
  Gateway& operator=(const Gateway&) = delete;

  // Orphaned claims of this owner -> unknown, then the committer runs. A store failure here
  // fails the start (hookd must not serve keys it may have sent without knowing).
  Status start();
  // Commits what is queued (outcomes of calls already answered), then stops. Idempotent.
  void stop();

  void handle(net::HttpRequest request, Respond respond);

  // The lease of a claim on `route`: the upstream call cannot outlast it.
  static std::chrono::milliseconds lease_of(const ProxyRoute& route);

 private:
  struct Call;
  void passthrough(const ProxyRoute& route, net::HttpRequest request, std::string rest,
                   Respond respond);
  void keyed(const ProxyRoute& route, net::HttpRequest request, std::string rest, std::string key,
             Respond respond);
  void on_claimed(std::shared_ptr<Call> call, Result<store::ProxyClaimResult> claimed);
  void answer_seen(Call& call, const store::ProxyKey& key);
  void send_upstream(std::shared_ptr<Call> call);
  void on_answer(std::shared_ptr<Call> call, net::AttemptResult result);
  void record(std::shared_ptr<Call> call, store::ProxyKeyOutcome outcome, net::HttpResponse answer,
              std::string_view metric);
  void count(std::string_view proxy, std::string_view outcome) const;
  net::OutboundRequest upstream_request(const ProxyRoute& route, const net::HttpRequest& request,
                                        const std::string& rest) const;

  GatewayOptions options_;
  GatewayDeps deps_;
  std::map<std::string, ProxyRoute, std::less<>> routes_;
  KeyCommitter committer_;
  bool started_ = false;
};

// The answer the client gets for an upstream response (hop-by-hop headers removed).
net::HttpResponse answer_of(const net::AttemptResult& result);
// The stored answer replayed for a completed key.
net::HttpResponse replay_of(const store::ProxyKey& key);

}  // namespace hookd::proxy
