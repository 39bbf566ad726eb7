#include "ops/hookd_metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace hookd::ops {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A35: /metrics exposes success rate inputs, retry distribution, dead-letter count and oldest
// age, latency histograms for p99, duplicates. Nothing that no code updates is exported:
// reconciliation and overdue-message families come with the jobs that set them (issue 12).
TEST(HookdMetricsTest, A35FiguresAreExposed) {
  Registry registry;
  HookdMetrics m(registry);
  add_store_gauges(registry, {.queue_depth = [] { return 12.0; },
                              .dead_letters = [] { return 3.0; },
                              .dead_letter_oldest_age = [] { return 4200.0; }});
  m.deliveries.with({"delivered"}).inc(9);
  m.deliveries.with({"dead_lettered"}).inc();
  m.attempts_per_delivery.get().observe(3);
  m.attempt_duration.with({"success"}).observe(0.2);
  m.inbound_events.with({"duplicate"}).inc(5);

  const std::string text = registry.render();
  EXPECT_TRUE(contains(text, "hookd_outbound_deliveries_total{outcome=\"delivered\"} 9\n"));
  EXPECT_TRUE(contains(text, "hookd_outbound_deliveries_total{outcome=\"discarded\"} 0\n"));
  EXPECT_TRUE(contains(text, "hookd_outbound_attempts_per_delivery_bucket{le=\"3\"} 1\n"));
  EXPECT_TRUE(contains(
      text, "hookd_outbound_attempt_duration_seconds_bucket{result=\"success\",le=\"0.25\"} 1\n"));
  EXPECT_TRUE(contains(text, "hookd_outbound_end_to_end_seconds_count 0\n"));
  EXPECT_TRUE(contains(text, "hookd_outbound_dead_letters 3\n"));
  EXPECT_TRUE(contains(text, "hookd_outbound_dead_letter_oldest_age_seconds 4200\n"));
  EXPECT_TRUE(contains(text, "hookd_outbound_queue_depth 12\n"));
  EXPECT_TRUE(contains(text, "hookd_inbound_events_total{outcome=\"duplicate\"} 5\n"));
  EXPECT_FALSE(contains(text, "hookd_reconcile_"));
  EXPECT_FALSE(contains(text, "overdue"));
  EXPECT_TRUE(contains(text, "# TYPE hookd_idempotency_requests_total counter\n"));
  EXPECT_DOUBLE_EQ(delivery_success_ratio(m), 0.9);
}

// Issue 3: open circuits (gauge) and alerts (401/403) are in the catalogue, zero at start.
TEST(HookdMetricsTest, OpenCircuitsAndAlertsAreExposed) {
  Registry registry;
  HookdMetrics m(registry);
  std::string text = registry.render();
  EXPECT_TRUE(contains(text, "# TYPE hookd_outbound_open_circuits gauge\n"));
  EXPECT_TRUE(contains(text, "hookd_outbound_open_circuits 0\n"));
  EXPECT_TRUE(contains(text, "hookd_outbound_alerts_total{status=\"401\"} 0\n"));
  m.open_circuits.get().add(2);
  m.open_circuits.get().sub(1);
  m.alerts.with({"403"}).inc();
  text = registry.render();
  EXPECT_TRUE(contains(text, "hookd_outbound_open_circuits 1\n"));
  EXPECT_TRUE(contains(text, "hookd_outbound_alerts_total{status=\"403\"} 1\n"));
}

TEST(HookdMetricsTest, SuccessRatioIgnoresRetriesAndIsNaNWhenEmpty) {
  Registry registry;
  HookdMetrics m(registry);
  EXPECT_TRUE(std::isnan(delivery_success_ratio(m)));
  m.deliveries.with({"retry_scheduled"}).inc(100);
  m.deliveries.with({"delivered"}).inc(1);
  EXPECT_DOUBLE_EQ(delivery_success_ratio(m), 1.0);
}

TEST(HookdMetricsTest, CatalogueCanBeBuiltTwiceOnOneRegistry) {
  Registry registry;
  HookdMetrics a(registry);
  HookdMetrics b(registry);
  EXPECT_EQ(&a.deliveries, &b.deliveries);
}

TEST(HookdMetricsTest, MissingStoreGaugesAreSkipped) {
  Registry registry;
  add_store_gauges(registry, {.queue_depth = [] { return 1.0; }});
  const std::string text = registry.render();
  EXPECT_TRUE(contains(text, "hookd_outbound_queue_depth 1\n"));
  EXPECT_FALSE(contains(text, "dead_letters"));
}

}  // namespace
}  // namespace hookd::ops
