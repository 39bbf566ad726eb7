#include "app/inbound_parts.hpp"

#include <chrono>

#include "app/module_options.hpp"

namespace hookd::app {
namespace {

constexpr std::size_t kMaxBatch = 512;
constexpr std::size_t kMaxQueue = 16384;

}  // namespace

Result<std::unique_ptr<InboundParts>> InboundParts::build(InboundDeps deps) {
  auto built = inbound::build_sources(source_settings(deps.config.sources));
  if (!built) return std::unexpected(built.error());
  std::map<std::string, std::shared_ptr<const inbound::Source>, std::less<>> sources;
  for (auto& s : *built) sources.emplace(s->name(), s);

  std::unique_ptr<InboundParts> p(new InboundParts(std::move(deps)));
  const auto& config = p->deps_.config;
  net::HttpClientOptions client_options;
  client_options.connect_timeout = config.delivery.connect_timeout;
  client_options.total_timeout = config.delivery.timeout;
  client_options.body_limit = config.delivery.max_response_body_bytes;
  client_options.thread_name = "hookd-fwd-http";
  client_options.nice = config.delivery.inbound_forward_nice;
  p->client_ = std::make_unique<net::HttpClient>(std::move(client_options));
  p->metrics_ = std::make_unique<inbound::InboundMetrics>(p->deps_.registry, p->deps_.catalogue);
  p->batcher_ = std::make_unique<inbound::InboxBatcher>(p->deps_.store, kMaxBatch, kMaxQueue);
  auto* clock = &p->deps_.clock;
  p->receiver_ = std::make_unique<inbound::Receiver>(inbound::ReceiverDeps{
      sources, *p->batcher_,
      [clock] {
        return std::chrono::duration_cast<std::chrono::seconds>(clock->now().time_since_epoch())
            .count();
      },
      p->metrics_.get(), p->deps_.logger, config.server.max_json_depth});

  p->forwarder_ = std::make_unique<inbound::Forwarder>(
      forwarder_options(config, p->deps_.node_id),
      inbound::ForwarderDeps{p->deps_.store, *p->client_, p->deps_.clock, p->deps_.random,
                             std::move(sources), p->metrics_.get(), p->deps_.logger,
                             // One writer (SQLite): rounds share the receiver's commits.
                             p->deps_.store.single_writer() ? p->batcher_.get() : nullptr,
                             p->deps_.alerts});
  p->batcher_->on_committed([f = p->forwarder_.get()] { f->wake(); });
  return p;
}

InboundParts::~InboundParts() { stop(); }

void InboundParts::on_commit_status(std::function<void(const Status&)> callback) {
  batcher_->on_commit_status(std::move(callback));
}

Status InboundParts::start() {
  if (deps_.config.sources.empty()) return {};
  auto released = deps_.store.inbox_release_leases(deps_.node_id + "/forwarder");
  if (!released) return std::unexpected(released.error());
  if (*released > 0 && deps_.logger) {
    deps_.logger->info("hookd.inbox_leases_released", {{"events", *released}});
  }
  client_->start();
  batcher_->start();
  started_ = true;
  return forwarder_->start();
}

void InboundParts::begin_stop(std::chrono::steady_clock::time_point deadline) {
  if (started_) forwarder_->begin_stop(deadline);
}

void InboundParts::stop() {
  if (!started_) return;
  started_ = false;
  batcher_->stop();
  forwarder_->stop();
  client_->stop();
}

void InboundParts::handle(net::HttpRequest request, inbound::Respond respond) {
  receiver_->handle(std::move(request), std::move(respond));
}

}  // namespace hookd::app
