#include "ops/metrics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "ops/prometheus_text.hpp"

namespace hookd::ops {
namespace {

TEST(MetricsTest, CounterRendersExactText) {
  Registry registry;
  auto& deliveries =
      registry.counter("hookd_deliveries_total", "Deliveries by outcome.", {"outcome"});
  deliveries.with({"failed"}).inc();
  deliveries.with({"delivered"}).inc(41);
  deliveries.with({"delivered"}).inc();
  EXPECT_EQ(registry.render(),
            "# HELP hookd_deliveries_total Deliveries by outcome.\n"
            "# TYPE hookd_deliveries_total counter\n"
            "hookd_deliveries_total{outcome=\"delivered\"} 42\n"
            "hookd_deliveries_total{outcome=\"failed\"} 1\n");
}

TEST(MetricsTest, UnlabelledMetricsRenderZeroBeforeFirstUpdate) {
  Registry registry;
  registry.counter("hookd_b_total", "B.");
  registry.gauge("hookd_a", "A.");
  EXPECT_EQ(registry.render(),
            "# HELP hookd_a A.\n# TYPE hookd_a gauge\nhookd_a 0\n"
            "# HELP hookd_b_total B.\n# TYPE hookd_b_total counter\nhookd_b_total 0\n");
}

TEST(MetricsTest, GaugeRendersDoubles) {
  Registry registry;
  auto& g = registry.gauge("hookd_inflight", "In flight.", {"endpoint", "kind"});
  g.with({"ep_1", "http"}).set(2.5);
  g.with({"ep_1", "http"}).add(1);
  g.with({"ep_2", "http"}).sub(3);
  EXPECT_EQ(registry.render(),
            "# HELP hookd_inflight In flight.\n"
            "# TYPE hookd_inflight gauge\n"
            "hookd_inflight{endpoint=\"ep_1\",kind=\"http\"} 3.5\n"
            "hookd_inflight{endpoint=\"ep_2\",kind=\"http\"} -3\n");
}

TEST(MetricsTest, HistogramRendersCumulativeBucketsSumAndCount) {
  Registry registry;
  auto& h =
      registry.histogram("hookd_delivery_latency_seconds", "Latency.", {0.1, 1, 10}, {"outcome"});
  auto& ok = h.with({"ok"});
  ok.observe(0.05);
  ok.observe(0.1);  // le is inclusive
  ok.observe(0.5);
  ok.observe(20);
  EXPECT_EQ(registry.render(),
            "# HELP hookd_delivery_latency_seconds Latency.\n"
            "# TYPE hookd_delivery_latency_seconds histogram\n"
            "hookd_delivery_latency_seconds_bucket{outcome=\"ok\",le=\"0.1\"} 2\n"
            "hookd_delivery_latency_seconds_bucket{outcome=\"ok\",le=\"1\"} 3\n"
            "hookd_delivery_latency_seconds_bucket{outcome=\"ok\",le=\"10\"} 3\n"
            "hookd_delivery_latency_seconds_bucket{outcome=\"ok\",le=\"+Inf\"} 4\n"
            "hookd_delivery_latency_seconds_sum{outcome=\"ok\"} 20.65\n"
            "hookd_delivery_latency_seconds_count{outcome=\"ok\"} 4\n");
}

TEST(MetricsTest, UnlabelledHistogramUsesOnlyLe) {
  Registry registry;
  registry.histogram("hookd_attempts", "Attempts.", {1, 2}).get().observe(2);
  EXPECT_EQ(registry.render(),
            "# HELP hookd_attempts Attempts.\n# TYPE hookd_attempts histogram\n"
            "hookd_attempts_bucket{le=\"1\"} 0\nhookd_attempts_bucket{le=\"2\"} 1\n"
            "hookd_attempts_bucket{le=\"+Inf\"} 1\nhookd_attempts_sum 2\nhookd_attempts_count 1\n");
}

TEST(MetricsTest, LabelValuesAndHelpAreEscaped) {
  Registry registry;
  registry.counter("hookd_x_total", "Line one\nback\\slash \"quoted\"", {"reason"})
      .with({"a\\b \"c\"\nd"})
      .inc();
  EXPECT_EQ(registry.render(),
            "# HELP hookd_x_total Line one\\nback\\\\slash \"quoted\"\n"
            "# TYPE hookd_x_total counter\n"
            "hookd_x_total{reason=\"a\\\\b \\\"c\\\"\\nd\"} 1\n");
}

TEST(MetricsTest, WithReturnsStableReference) {
  Registry registry;
  auto& family = registry.counter("hookd_y_total", "Y.", {"k"});
  Counter* first = &family.with({"a"});
  for (int i = 0; i < 100; ++i) family.with({std::to_string(i)});
  EXPECT_EQ(first, &family.with({"a"}));
}

TEST(MetricsTest, SameNameSameShapeReturnsSameFamily) {
  Registry registry;
  auto& a = registry.counter("hookd_z_total", "Z.", {"k"});
  auto& b = registry.counter("hookd_z_total", "Z.", {"k"});
  EXPECT_EQ(&a, &b);
}

TEST(MetricsDeathTest, BadNamesAbort) {
  Registry registry;
  EXPECT_DEATH(registry.counter("bad-name", "x"), "invalid metric name");
  EXPECT_DEATH(registry.counter("hookd_ok_total", "x", {"le"}), "invalid label name");
  registry.counter("hookd_ok_total", "x");
  EXPECT_DEATH(registry.gauge("hookd_ok_total", "x"), "different shape");
  auto& f = registry.counter("hookd_lbl_total", "x", {"a", "b"});
  EXPECT_DEATH(f.with({"only_one"}), "wrong number of label values");
}

TEST(MetricsTest, ConcurrentIncrementsAreExact) {
  Registry registry;
  auto& family = registry.counter("hookd_c_total", "C.", {"t"});
  auto& hist = registry.histogram("hookd_h_seconds", "H.", {0.5, 1.5});
  constexpr int kThreads = 4;
  constexpr int kPerThread = 100000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      Counter& c = family.with({"shared"});
      for (int i = 0; i < kPerThread; ++i) {
        c.inc();
        hist.get().observe(1.0);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(family.with({"shared"}).value(), std::uint64_t{kThreads} * kPerThread);
  const HistogramSnapshot s = hist.get().snapshot();
  EXPECT_EQ(s.count, std::uint64_t{kThreads} * kPerThread);
  EXPECT_EQ(s.counts[1], std::uint64_t{kThreads} * kPerThread);
  EXPECT_DOUBLE_EQ(s.sum, double{kThreads} * kPerThread);  // integers add exactly
}

TEST(MetricsTest, CallbackGaugesAreComputedOnEachScrape) {
  Registry registry;
  int depth = 7;
  registry.gauge_callback("hookd_queue_depth", "Waiting messages.", [&] { return depth; });
  registry.gauge_callback("hookd_dead_letter_oldest_age_seconds", "Oldest dead letter.", {"app"},
                          [] {
                            return std::vector<GaugeSample>{{{"app_1"}, 12.5}, {{"app_2"}, 0}};
                          });
  const std::string first = registry.render();
  EXPECT_EQ(first,
            "# HELP hookd_dead_letter_oldest_age_seconds Oldest dead letter.\n"
            "# TYPE hookd_dead_letter_oldest_age_seconds gauge\n"
            "hookd_dead_letter_oldest_age_seconds{app=\"app_1\"} 12.5\n"
            "hookd_dead_letter_oldest_age_seconds{app=\"app_2\"} 0\n"
            "# HELP hookd_queue_depth Waiting messages.\n"
            "# TYPE hookd_queue_depth gauge\n"
            "hookd_queue_depth 7\n");
  depth = 9;
  EXPECT_NE(registry.render().find("hookd_queue_depth 9\n"), std::string::npos);
}

TEST(MetricsTest, FormatsSpecialDoubles) {
  EXPECT_EQ(prom::format_double(0.0025), "0.0025");
  EXPECT_EQ(prom::format_double(60), "60");
  EXPECT_EQ(prom::format_double(INFINITY), "+Inf");
  EXPECT_EQ(prom::format_double(-INFINITY), "-Inf");
  EXPECT_EQ(prom::format_double(NAN), "NaN");
}

TEST(MetricsTest, QuantileInterpolatesInsideBucket) {
  Histogram h({10, 20, 30, 40});
  // 100 observations spread evenly: 25 in each bucket.
  for (int i = 0; i < 100; ++i) h.observe(0.4 * i + 0.2);
  const HistogramSnapshot s = h.snapshot();
  EXPECT_DOUBLE_EQ(estimate_quantile(s, 0.5), 20.0);
  EXPECT_DOUBLE_EQ(estimate_quantile(s, 0.99), 39.6);
  EXPECT_DOUBLE_EQ(estimate_quantile(s, 0.1), 4.0);
}

TEST(MetricsTest, QuantileEdgeCases) {
  Histogram h({1, 2});
  EXPECT_TRUE(std::isnan(estimate_quantile(h.snapshot(), 0.5)));
  h.observe(NAN);  // ignored
  EXPECT_EQ(h.snapshot().count, 0u);
  h.observe(100);  // only in +Inf
  EXPECT_DOUBLE_EQ(estimate_quantile(h.snapshot(), 0.99), 2.0);
  h.observe(1.5);
  EXPECT_DOUBLE_EQ(estimate_quantile(h.snapshot(), 0.5), 2.0);
}

TEST(MetricsTest, MergeSnapshotsAcrossLabels) {
  Registry registry;
  auto& family = registry.histogram("hookd_m_seconds", "M.", latency_buckets_seconds(), {"ep"});
  family.with({"a"}).observe(0.002);
  family.with({"b"}).observe(0.02);
  family.with({"b"}).observe(5);
  HistogramSnapshot total;
  for (const auto& [values, h] : family.children()) merge_into(total, h->snapshot());
  EXPECT_EQ(total.count, 3u);
  EXPECT_DOUBLE_EQ(total.sum, 5.022);
  EXPECT_LE(estimate_quantile(total, 0.5), 0.025);
  EXPECT_GE(estimate_quantile(total, 0.5), 0.01);
}

TEST(MetricsTest, NameValidation) {
  EXPECT_TRUE(prom::valid_metric_name("hookd_a:b_total"));
  EXPECT_FALSE(prom::valid_metric_name("1abc"));
  EXPECT_FALSE(prom::valid_metric_name(""));
  EXPECT_TRUE(prom::valid_label_name("outcome"));
  EXPECT_FALSE(prom::valid_label_name("__name"));
  EXPECT_FALSE(prom::valid_label_name("a:b"));
}

}  // namespace
}  // namespace hookd::ops
