// Api: hookd's REST API — the Svix-compatible routes (applications, event types, endpoints,
// messages, attempts, resend, recover, health) plus hookd's own additions under
// /api/v1/hookd/... (dead-letter queue, audit log, endpoint enable/disable). See docs/api.md.
//
// It is transport-free: the composition root hands every request under /api/ to handle()
// and wraps the server's Responder into a Respond. handle() never blocks on the network; it
// may answer on the calling thread (most routes) or later from the publish committer thread
// (POST .../msg goes through group commit, see publish_batcher.hpp).
//
// Thread-safety: handle() may be called concurrently from any number of threads between
// start() and stop(). start()/stop() are called once each, from one thread, not
// concurrently with each other. Requests handled before start() or after stop() get 503.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "config/config.hpp"
#include "hookd/env.hpp"
#include "hookd/result.hpp"
#include "net/http_types.hpp"
#include "store/store.hpp"

namespace hookd::ops {
struct HookdMetrics;
class Registry;
class Logger;
}  // namespace hookd::ops

namespace hookd::api {

// Answers one request; called exactly once, from any thread.
using Respond = std::move_only_function<void(net::HttpResponse)>;

struct ApiOptions {
  std::size_t publish_max_batch = 256;     // messages per group commit
  std::size_t publish_max_queue = 10'000;  // queued publishes; beyond → 503
  std::chrono::milliseconds idempotency_ttl = std::chrono::hours(24);
  std::chrono::milliseconds secret_rotation_grace = std::chrono::hours(24);  // old key signs
};

struct ApiDeps {
  store::Store& store;
  const config::Config& config;  // auth.tokens, server limits, ssrf allow-list
  Clock& clock;
  Random& random;                        // fill(): new endpoint secrets (whsec_...)
  ops::HookdMetrics* metrics = nullptr;  // optional: idempotency outcomes
  ops::Registry* registry = nullptr;     // optional: API counters (auth failures, publishes)
  ops::Logger* logger = nullptr;         // optional
  ApiOptions options = {};
  // Called after a publish commit that created deliveries (the composition root wakes the
  // dispatcher with it). Runs on the publish committer thread; must not block. Optional.
  std::function<void()> on_published = {};
};

class Api {
 public:
  explicit Api(ApiDeps deps);
  ~Api();  // stop()s
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  // Checks the configuration (ssrf allow-list) and starts the publish committer thread.
  Status start();
  // Answers every queued publish (committing them), then stops the committer. Idempotent.
  void stop();

  void handle(net::HttpRequest request, Respond respond);

  // The dispatcher's store round, committed together with the queued publishes (one
  // transaction, see PublishBatcher::commit_round). Blocks until committed; any thread.
  Result<store::DispatchRoundResult> commit_round(store::DispatchRound round);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace hookd::api
