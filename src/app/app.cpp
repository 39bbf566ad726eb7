#include "app/app.hpp"

#include <algorithm>
#include <thread>

#include "app/listen_address.hpp"
#include "app/parts.hpp"
#include "app/store_factory.hpp"
#include "app/store_gauges.hpp"

namespace hookd::app {

Result<std::unique_ptr<App>> App::create(config::Config config, AppOptions options) {
  auto parts = std::make_unique<Parts>(std::move(config));
  auto built = parts->build(std::move(options));
  if (!built) return std::unexpected(built.error());
  return std::unique_ptr<App>(new App(std::move(parts)));
}

App::App(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}

App::~App() { stop(); }

Status App::start() {
  auto started = parts_->start();
  if (!started) parts_->stop();
  return started;
}

void App::stop() { parts_->stop(); }

std::uint16_t App::port() const { return parts_->server ? parts_->server->local_port() : 0; }

std::string App::base_url() const {
  return app::base_url(ListenAddress{parts_->listen.host, port()});
}

Status App::readiness() const { return parts_->readiness(); }

}  // namespace hookd::app
