// App: hookd's composition root. The only place that knows the concrete classes: it builds
// the store (SQLite), the id generator and clocks, the metrics registry and logger, the
// outbound HTTP client with its SSRF guard, the dispatcher, the REST API and one HTTP server
// whose Router sends /api/... to the API, /metrics to the registry, and answers /healthz and
// /readyz — all from one validated Config.
//
// Lifecycle (explicit, in dependency order):
//   create(): opens the store (nothing runs yet; a bad database path fails here).
//   start():  migrate → HTTP client → publish batcher → dispatcher → API → HTTP server
//             (listening) → ready.
//   stop():   not ready → dispatcher and forwarder stop claiming → HTTP server drains, all
//             against ONE deadline (now + server.shutdown_grace) → API (refuses requests) →
//             dispatcher (records, releases its leases) → publish batcher (commits and answers
//             every queued publish) → HTTP client. Idempotent; the destructor calls it.
// If a step of start() fails, what already started is stopped again and the error returned.
//
// Thread-safety: create/start/stop/port are called from one thread (main); the objects
// inside run their own threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "config/config.hpp"
#include "hookd/result.hpp"
#include "ops/log.hpp"

namespace hookd::app {

struct AppOptions {
  // Where log lines go; null = standard error.
  spdlog::sink_ptr log_sink;
};

class App {
 public:
  static Result<std::unique_ptr<App>> create(config::Config config, AppOptions options = {});
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  Status start();
  void stop();

  // The bound port (the chosen one when server.listen has port 0); 0 before start().
  std::uint16_t port() const;
  // "http://127.0.0.1:PORT" for the bound port.
  std::string base_url() const;
  // Ready = started, not stopping, store reachable (what /readyz answers).
  Status readiness() const;

  struct Parts;  // the owned components (app.cpp)

 private:
  explicit App(std::unique_ptr<Parts> parts);
  void stop_started();

  std::unique_ptr<Parts> parts_;
};

}  // namespace hookd::app
