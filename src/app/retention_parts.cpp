#include "app/retention_parts.hpp"

#include <string>

#include "app/module_options.hpp"

namespace hookd::app {
namespace {

struct RetentionMetrics {
  explicit RetentionMetrics(ops::Registry& r)
      : rows(r.gauge("hookd_retention_rows", "rows kept, per kind, after the last purge pass",
                     {"kind"})),
        oldest(r.gauge("hookd_retention_oldest_timestamp_seconds",
                       "creation time of the oldest row per kind (0: none), after the last pass",
                       {"kind"})),
        purged(r.counter("hookd_retention_purged_total", "rows purged after their retention",
                         {"kind"})),
        passes(r.counter("hookd_retention_passes_total", "purge passes by result", {"result"})),
        last_pass(r.gauge("hookd_retention_last_pass_timestamp_seconds",
                          "when the last purge pass ended")),
        reclaimed(r.counter("hookd_retention_reclaimed_pages_total",
                            "database pages given back to the file system (SQLite)")) {}
  ops::GaugeFamily& rows;
  ops::GaugeFamily& oldest;
  ops::CounterFamily& purged;
  ops::CounterFamily& passes;
  ops::GaugeFamily& last_pass;
  ops::CounterFamily& reclaimed;
};

const char* result_of(const store::PassReport& report) {
  if (report.error) return "failed";
  return report.interrupted ? "interrupted" : "ok";
}

void record(RetentionMetrics& m, const ops::Logger& logger, const store::PassReport& report) {
  nlohmann::json deleted = nlohmann::json::object();
  for (std::size_t i = 0; i < std::size(store::kRetentionKinds); ++i) {
    const std::string kind(store::to_string(store::kRetentionKinds[i]));
    m.purged.with({kind}).inc(static_cast<std::uint64_t>(report.deleted[i]));
    deleted[kind] = report.deleted[i];
  }
  for (const auto& stat : report.stats) {
    const std::string kind(store::to_string(stat.kind));
    m.rows.with({kind}).set(static_cast<double>(stat.rows));
    m.oldest.with({kind}).set(stat.oldest_at ? static_cast<double>(*stat.oldest_at) / 1000.0 : 0);
  }
  m.passes.with({result_of(report)}).inc();
  m.last_pass.get().set(static_cast<double>(report.finished_at) / 1000.0);
  m.reclaimed.get().inc(static_cast<std::uint64_t>(report.reclaimed_pages));
  if (report.error) {
    logger.warn("hookd.retention.pass_failed",
                {{"error", report.error->message}, {"deleted", deleted}});
    return;
  }
  logger.info("hookd.retention.pass", {{"deleted", deleted},
                                       {"batches", report.batches},
                                       {"reclaimed_pages", report.reclaimed_pages},
                                       {"ms", report.finished_at - report.started_at},
                                       {"interrupted", report.interrupted}});
}

}  // namespace

std::unique_ptr<store::RetentionPurger> build_retention_purger(const config::Config& config,
                                                               store::Store& store, Clock& clock,
                                                               ops::Registry& registry,
                                                               const ops::Logger& logger) {
  auto metrics = std::make_shared<RetentionMetrics>(registry);
  return std::make_unique<store::RetentionPurger>(
      store, clock, purger_options(config),
      [metrics, &logger](const store::PassReport& report) { record(*metrics, logger, report); });
}

}  // namespace hookd::app
