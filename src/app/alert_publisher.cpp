#include "app/alert_publisher.hpp"

#include <array>

#include "core/alert_types.hpp"
#include "hookd/ids.hpp"
#include "wire/time.hpp"

namespace hookd::app {

AlertPublisher::AlertPublisher(AlertPublisherOptions options, AlertPublisherDeps deps)
    : options_(std::move(options)), deps_(std::move(deps)) {
  auto& family =
      deps_.registry.counter("hookd_alerts_raised_total",
                             "Operational alerts raised (counted whether sent or not).", {"type"});
  for (auto type : alert_types::kAll)
    raised_[std::string(type)] = &family.with({std::string(type)});
  dropped_ = &deps_.registry
                  .counter("hookd_alerts_dropped_total",
                           "Alerts that could not be queued for sending (logged as errors).", {})
                  .with({});
}

Status AlertPublisher::start() {
  if (options_.url.empty()) return {};
  auto app = ensure_application();
  if (!app) return std::unexpected(app.error());
  if (auto ep = ensure_endpoint(*app); !ep) return ep;
  app_id_ = app->id;
  sending_ = true;
  return {};
}

void AlertPublisher::stop() { sending_ = false; }

void AlertPublisher::raise(std::string_view type, nlohmann::json data) {
  if (auto it = raised_.find(type); it != raised_.end()) it->second->inc();
  deps_.masker->mask_json_in_place(data);
  if (deps_.logger) {
    deps_.logger->warn("alert.raised", {{"type", std::string(type)}, {"data", data.dump()}});
  }
  if (!sending_ || !wanted(type)) return;
  if (data.is_object() && data.value("appId", "") == app_id_) return;  // its own: no loop
  publish(type, data);
}

bool AlertPublisher::wanted(std::string_view type) const {
  if (options_.types.empty()) return true;
  for (const auto& t : options_.types) {
    if (t == type) return true;
  }
  return false;
}

void AlertPublisher::publish(std::string_view type, const nlohmann::json& data) {
  store::NewMessage msg;
  msg.app_id = app_id_;
  msg.event_type = std::string(type);
  msg.payload = nlohmann::json{
      {"type", type},
      {"timestamp", wire::format_time(deps_.clock.now_ms())},
      {"data",
       data}}.dump();
  const std::string name(type);
  auto done = [this, name](Result<store::PublishOutcome> outcome) {
    if (!outcome) {
      dropped(name, outcome.error().message);
    } else if (outcome->kind == store::PublishOutcome::Kind::kRejected && outcome->error) {
      dropped(name, outcome->error->message);
    }
  };
  if (!deps_.publish.submit(std::move(msg), std::move(done))) dropped(name, "publish queue full");
}

void AlertPublisher::dropped(std::string_view type, const std::string& why) {
  dropped_->inc();
  if (deps_.logger) {
    deps_.logger->error("alert.dropped", {{"type", std::string(type)}, {"error", why}});
  }
}

std::string AlertPublisher::new_id(std::string_view prefix) {
  IdRandomBytes bytes{};
  deps_.random.fill(bytes);
  return make_id(prefix, deps_.clock.now_ms(), bytes);
}

Result<store::Application> AlertPublisher::ensure_application() {
  auto found = deps_.store.get_application(std::string(kUid));
  if (found || found.error().code != ErrorCode::kNotFound) return found;
  store::Application app;
  app.id = new_id("app");
  app.uid = std::string(kUid);
  app.name = "hookd operational alerts";
  app.created_at = app.updated_at = deps_.clock.now_ms();
  auto created = deps_.store.create_application(app);
  // Another node may have created it at the same moment.
  if (!created && created.error().code == ErrorCode::kConflict) {
    return deps_.store.get_application(std::string(kUid));
  }
  return created;
}

Status AlertPublisher::ensure_endpoint(const store::Application& app) {
  std::optional<std::vector<std::string>> filter;
  if (!options_.types.empty()) filter = options_.types;
  auto found = deps_.store.get_endpoint(app.id, std::string(kUid));
  if (!found) {
    if (found.error().code != ErrorCode::kNotFound) return std::unexpected(found.error());
    store::Endpoint ep;
    ep.id = new_id("ep");
    ep.app_id = app.id;
    ep.uid = std::string(kUid);
    ep.url = options_.url;
    ep.description = "operational alerts ([alerts] in the configuration)";
    ep.filter_types = filter;
    ep.secrets.current = options_.secret;
    ep.created_at = ep.updated_at = deps_.clock.now_ms();
    auto created = deps_.store.create_endpoint(ep);
    if (!created && created.error().code != ErrorCode::kConflict) {
      return std::unexpected(created.error());
    }
    return {};
  }
  store::Endpoint ep = *found;
  if (ep.url != options_.url || ep.filter_types != filter) {
    ep.url = options_.url;  // the configuration is the truth for this endpoint
    ep.filter_types = filter;
    ep.updated_at = deps_.clock.now_ms();
    auto updated = deps_.store.update_endpoint(ep);
    if (!updated) return std::unexpected(updated.error());
  }
  if (found->secrets.current != options_.secret) {  // the old secret stops at once
    auto rotated = deps_.store.rotate_endpoint_secret(app.id, ep.id, options_.secret, 0);
    if (!rotated) return std::unexpected(rotated.error());
  }
  return {};
}

}  // namespace hookd::app
