#include "app/reconcile_parts.hpp"

#include <algorithm>
#include <limits>

#include "app/module_options.hpp"

namespace hookd::app {
namespace {

// The body limit of the reconcilers' client: the largest page any source accepts.
std::size_t largest_page(const config::Config& config) {
  std::size_t most = 1024 * 1024;
  for (const auto& s : config.sources) {
    if (s.reconcile) most = std::max(most, static_cast<std::size_t>(s.reconcile->max_page_bytes));
  }
  return most;
}

reconcile::Resolution to_resolution(const api::DifferenceResolution& r) {
  return reconcile::Resolution{r.action, r.state, r.reason, r.audit};
}

}  // namespace

Result<std::unique_ptr<ReconcileParts>> ReconcileParts::build(ReconcileDeps deps) {
  auto built = inbound::build_sources(source_settings(deps.config.sources));
  if (!built) return std::unexpected(built.error());
  std::unique_ptr<ReconcileParts> p(new ReconcileParts(std::move(deps)));
  const auto& config = p->deps_.config;
  net::HttpClientOptions client_options;
  client_options.body_limit = largest_page(config);
  client_options.thread_name = "hookd-rec-http";
  p->client_ = std::make_unique<net::HttpClient>(std::move(client_options));
  for (std::size_t i = 0; i < built->size(); ++i) {
    const auto& source_config = config.sources[i];
    // A source without [source.reconcile] gets an idle reconciler: it resolves differences.
    auto options = reconcile_options(source_config.reconcile.value_or(config::ReconcileConfig{}),
                                     config.server, p->deps_.node_id);
    if (!source_config.reconcile) options.interval = std::chrono::milliseconds(0);
    auto r = std::make_unique<reconcile::Reconciler>(
        std::move(options), reconcile::ReconcilerDeps{
                                p->deps_.store, p->deps_.store, *p->client_, p->deps_.clock,
                                (*built)[i], p->deps_.registry, p->deps_.logger, p->deps_.alerts});
    if (source_config.reconcile) p->configured_.emplace(source_config.name, r.get());
    p->reconcilers_.emplace(source_config.name, std::move(r));
  }
  if (p->deps_.registry && p->any_configured()) {
    std::vector<std::string> names;
    for (const auto& [name, _] : p->configured_) names.push_back(name);
    register_reconcile_gauges(*p->deps_.registry, p->deps_.store, p->deps_.clock, std::move(names));
  }
  return p;
}

ReconcileParts::~ReconcileParts() { stop(); }

Status ReconcileParts::start() {
  if (started_ || configured_.empty()) return {};
  client_->start();
  for (auto& [_, r] : configured_) r->start();
  started_ = true;
  return {};
}

void ReconcileParts::stop() {
  if (!started_) return;
  started_ = false;
  for (auto& [_, r] : configured_) r->stop();
  client_->stop();
}

Result<reconcile::Reconciler*> ReconcileParts::configured(const std::string& source) {
  const auto it = configured_.find(source);
  if (it == configured_.end()) {
    return fail(ErrorCode::kNotFound, "no source '" + source + "' with [source.reconcile]");
  }
  return it->second;
}

Result<store::ReconcileRun> ReconcileParts::start_run(const std::string& source,
                                                      const std::string& trigger) {
  HOOKD_TRY(r, configured(source));
  return r->start_run(trigger);
}

Result<store::ReconcileRun> ReconcileParts::run_once(const std::string& source,
                                                     const std::string& trigger) {
  HOOKD_TRY(r, configured(source));
  if (!started_) client_->start();
  auto run = r->run_once(trigger);
  if (!started_) client_->stop();
  return run;
}

Result<store::Difference> ReconcileParts::resolve(const std::string& difference_id,
                                                  const api::DifferenceResolution& resolution) {
  HOOKD_TRY(difference, deps_.store.reconcile_get_difference(difference_id));
  const auto it = reconcilers_.find(difference.source);
  if (it == reconcilers_.end()) {
    return fail(ErrorCode::kInvalidArgument,
                "the difference's source '" + difference.source + "' is no longer configured");
  }
  return it->second->resolve(difference_id, to_resolution(resolution));
}

void register_reconcile_gauges(ops::Registry& registry, store::ReconcileStore& store, Clock& clock,
                               std::vector<std::string> configured_sources) {
  auto stats = [&store] { return store.reconcile_stats(); };
  registry.gauge_callback(
      "hookd_reconcile_differences",
      "Reconciliation differences by source, kind (missing, stuck, state_mismatch, "
      "parked_timeout) and state (open, repaired, resolved).",
      {"source", "kind", "state"}, [stats] {
        std::vector<ops::GaugeSample> out;
        if (auto s = stats()) {
          for (const auto& d : *s) {
            out.push_back({{d.source, std::string(store::to_string(d.kind)),
                            std::string(store::to_string(d.state))},
                           static_cast<double>(d.count)});
          }
        }
        return out;
      });
  registry.gauge_callback(
      "hookd_reconcile_oldest_open_seconds",
      "Age of the oldest open reconciliation difference, by source.", {"source"}, [stats, &clock] {
        std::map<std::string, store::Millis> oldest;
        if (auto s = stats()) {
          for (const auto& d : *s) {
            if (d.state != store::DifferenceState::kOpen || d.count == 0) continue;
            auto [it, fresh] = oldest.emplace(d.source, d.oldest_found_at);
            if (!fresh) it->second = std::min(it->second, d.oldest_found_at);
          }
        }
        std::vector<ops::GaugeSample> out;
        for (const auto& [source, at] : oldest) {
          out.push_back({{source}, static_cast<double>(clock.now_ms() - at) / 1000.0});
        }
        return out;
      });
  registry.gauge_callback(
      "hookd_reconcile_watermark_lag_seconds",
      "How far the reconciler's watermark (the newest feed item stored) is behind now, by "
      "source.",
      {"source"}, [&store, &clock, sources = std::move(configured_sources)] {
        std::vector<ops::GaugeSample> out;
        for (const auto& source : sources) {
          auto c = store.reconcile_cursor(source);
          if (!c || !c->watermark_at) continue;
          out.push_back(
              {{source}, static_cast<double>(clock.now_ms() - *c->watermark_at) / 1000.0});
        }
        return out;
      });
}

}  // namespace hookd::app
