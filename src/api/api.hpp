// Api: hookd's REST API — the Svix-compatible routes (applications, event types, endpoints,
// messages, attempts, resend, recover, health) plus hookd's own additions under
// /api/v1/hookd/... (dead-letter queue, audit log, endpoint enable/disable, inbox,
// idempotency keys, reconciliation). See docs/api.md.
//
// It is transport-free: the composition root hands every request under /api/ to handle()
// and wraps the server's Responder into a Respond. handle() never blocks on the network; it
// may answer on the calling thread (most routes) or later from the publish committer thread
// (POST .../msg goes through group commit behind ApiDeps::publish, see publish_port.hpp).
//
// Thread-safety: handle() may be called concurrently from any number of threads between
// start() and stop(). start()/stop() are called once each, from one thread, not
// concurrently with each other. Requests handled before start() or after stop() get 503.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "api/auth.hpp"
#include "api/publish_port.hpp"
#include "api/reconcile_port.hpp"
#include "core/address_policy.hpp"
#include "hookd/env.hpp"
#include "hookd/result.hpp"
#include "net/http_types.hpp"
#include "store/store.hpp"

namespace hookd::ops {
struct HookdMetrics;
class Registry;
class Logger;
class AlertSink;
}  // namespace hookd::ops

namespace hookd::api {

// Answers one request; called exactly once, from any thread.
using Respond = std::move_only_function<void(net::HttpResponse)>;

struct ApiOptions {
  std::chrono::milliseconds idempotency_ttl = std::chrono::hours(24);
  std::chrono::milliseconds secret_rotation_grace = std::chrono::hours(24);  // old key signs
  std::vector<TokenEntry> tokens;  // Bearer tokens; none = every authenticated route is 401
  int max_json_depth = 64;         // nesting of JSON bodies parsed; deeper → 400
  // Each [[proxy]]'s ttl: how long a key a person resolved as completed stays replayable
  // (idempotency_ttl for a proxy not listed).
  std::map<std::string, std::chrono::milliseconds, std::less<>> proxy_key_ttls;
  AddressPolicy address_policy{};  // endpoint URLs must pass it (SSRF)
};

struct ApiDeps {
  store::Store& store;
  // Publishes go here (group commit). Its answers call back into the Api: the owner stops
  // it, answering every publish it accepted, before destroying the Api.
  PublishPort& publish;
  Clock& clock;
  Random& random;                        // fill(): new endpoint secrets (whsec_...)
  ops::HookdMetrics* metrics = nullptr;  // optional: idempotency outcomes
  ops::Registry* registry = nullptr;     // optional: API counters (auth failures, publishes)
  ops::Logger* logger = nullptr;         // optional
  ApiOptions options = {};
  // The reconcilers (run now, resolve a difference); null = no [source.reconcile] anywhere:
  // those two routes answer 404 "no reconciler", the lists still read the store.
  ReconcilePort* reconcile = nullptr;
  // Optional: endpoint.disabled when a person disables an endpoint.
  ops::AlertSink* alerts = nullptr;
};

class Api {
 public:
  explicit Api(ApiDeps deps);
  ~Api();  // stop()s
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  // Starts answering requests.
  Status start();
  // From now on every request is answered 503. Publishes already handed to ApiDeps::publish
  // are answered by it (its owner stops it after the Api). Idempotent.
  void stop();

  void handle(net::HttpRequest request, Respond respond);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace hookd::api
