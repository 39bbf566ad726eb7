// InboundParts: the inbound gateway's components inside the App — the sources built from
// [[source]], the inbox group-commit batcher, the /in/<name> receiver and the forwarder —
// and their start/stop order. Forwards go through an HttpClient of their own without the
// SSRF guard: forward targets are set by the operator in the config and are meant to be
// local (the SSRF rule is about URLs API users register); it also keeps a slow app from
// competing with outbound endpoints for connections. Kept apart from parts.cpp so the outbound
// wiring and this one change independently. With no [[source]], nothing is started and /in/ answers
// 404. Thread-safety: build/start/stop from the App's thread; handle() from any thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "config/config.hpp"
#include "hookd/env.hpp"
#include "inbound/forwarder.hpp"
#include "inbound/inbound_metrics.hpp"
#include "inbound/inbox_batcher.hpp"
#include "inbound/receiver.hpp"
#include "net/http_client.hpp"
#include "ops/hookd_metrics.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"
#include "store/store.hpp"

namespace hookd::app {

struct InboundDeps {
  const config::Config& config;
  store::Store& store;
  Clock& clock;
  Random& random;
  ops::Registry& registry;
  ops::HookdMetrics* catalogue;
  const ops::Logger* logger;
  std::string node_id;
  ops::AlertSink* alerts = nullptr;
};

class InboundParts {
 public:
  static Result<std::unique_ptr<InboundParts>> build(InboundDeps deps);
  ~InboundParts();

  // Takes back this node's forwarder leases left by a crash, starts batcher and forwarder.
  Status start();
  // Batcher first (answers every queued request), then the forwarder, then its client.
  void stop();
  // Ends forwarding now; forwards in flight may finish until `deadline` (stop() joins).
  void begin_stop(std::chrono::steady_clock::time_point deadline);

  void handle(net::HttpRequest request, inbound::Respond respond);

  // Sees the outcome of each inbox commit (readiness, app/store_health.hpp). Before start().
  void on_commit_status(std::function<void(const Status&)> callback);

 private:
  explicit InboundParts(InboundDeps deps) : deps_(std::move(deps)) {}

  InboundDeps deps_;
  std::unique_ptr<net::HttpClient> client_;
  std::unique_ptr<inbound::InboundMetrics> metrics_;
  std::unique_ptr<inbound::InboxBatcher> batcher_;
  std::unique_ptr<inbound::Receiver> receiver_;
  std::unique_ptr<inbound::Forwarder> forwarder_;
  bool started_ = false;
};

}  // namespace hookd::app
