// AlertPublisher: the daemon's ops::AlertSink (SPEC §7, A41). Every alert is counted
// (hookd_alerts_raised_total{type}) and logged (`alert.raised`, masked); with [alerts] url it is
// also published as a message of hookd's own application "hookd-alerts" to its one endpoint
// "hookd-alerts" (url, secret and types from the config, kept in step at each start), so the
// outbound machinery signs it (Standard Webhooks), retries it and dead-letters it like any
// delivery. Payload: {"type", "timestamp", "data"} with `data` masked (personal-data patterns
// and the configured pointers; the modules put only ids, statuses and reasons there).
// An alert about the alerts application itself (its own dead letter) is counted and logged,
// never published again (no loop). A publish the batcher refuses (queue full, stopping) is
// counted in hookd_alerts_dropped_total and logged as an error.
// Thread-safety: raise() from any thread (it only queues through the PublishPort);
// start()/stop() from the owner's thread.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/publish_port.hpp"
#include "hookd/env.hpp"
#include "hookd/result.hpp"
#include "ops/alerts.hpp"
#include "ops/log.hpp"
#include "ops/masking.hpp"
#include "ops/metrics.hpp"
#include "store/store.hpp"

namespace hookd::app {

struct AlertPublisherOptions {
  std::string url;                 // "" = count and log only
  std::string secret;              // whsec_..., the alert endpoint's signing secret
  std::vector<std::string> types;  // published types; empty = every type
};

struct AlertPublisherDeps {
  store::Store& store;  // the alerts application and endpoint
  api::PublishPort& publish;
  Clock& clock;
  Random& random;
  ops::Registry& registry;
  ops::Logger* logger = nullptr;
  std::shared_ptr<const ops::Masker> masker;  // required
};

class AlertPublisher final : public ops::AlertSink {
 public:
  static constexpr std::string_view kUid = "hookd-alerts";  // application and endpoint uid

  AlertPublisher(AlertPublisherOptions options, AlertPublisherDeps deps);

  // With a url: creates or updates the application and its endpoint, then publishes alerts.
  Status start();
  void stop();  // from now on alerts are counted and logged only
  void raise(std::string_view type, nlohmann::json data) override;

 private:
  Result<store::Application> ensure_application();
  Status ensure_endpoint(const store::Application& app);
  std::string new_id(std::string_view prefix);
  bool wanted(std::string_view type) const;
  void publish(std::string_view type, const nlohmann::json& data);
  void dropped(std::string_view type, const std::string& why);

  AlertPublisherOptions options_;
  AlertPublisherDeps deps_;
  std::map<std::string, ops::Counter*, std::less<>> raised_;  // by type, registered up front
  ops::Counter* dropped_ = nullptr;
  std::string app_id_;  // set by start() before sending_ turns true
  std::atomic<bool> sending_{false};
};

}  // namespace hookd::app
