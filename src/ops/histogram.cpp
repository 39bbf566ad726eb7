// Histogram updates, snapshots, standard bucket layouts and quantile estimation.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "ops/metrics.hpp"

namespace hookd::ops {
namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "hookd metrics: %s\n", what);
  std::abort();
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      counts_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds_.size() + 1)) {
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    if (!std::isfinite(bounds_[i])) die("histogram bound must be finite");
    if (i > 0 && bounds_[i] <= bounds_[i - 1]) die("histogram bounds must increase");
  }
}

void Histogram::observe(double v) {
  if (std::isnan(v)) return;  // would poison the sum forever
  // Bucket i holds bounds[i-1] < v <= bounds[i]; values above the last bound go to +Inf.
  const auto i = static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) -
                                          bounds_.begin());
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

HistogramSnapshot Histogram::snapshot() const {
  HistogramSnapshot s;
  s.bounds = bounds_;
  s.counts.resize(bounds_.size() + 1);
  for (std::size_t i = 0; i < s.counts.size(); ++i) {
    s.counts[i] = counts_[i].load(std::memory_order_relaxed);
    s.count += s.counts[i];
  }
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

void merge_into(HistogramSnapshot& a, const HistogramSnapshot& b) {
  if (a.bounds.empty() && a.counts.empty()) {
    a = b;
    return;
  }
  if (a.bounds != b.bounds) die("merging histograms with different buckets");
  for (std::size_t i = 0; i < a.counts.size(); ++i) a.counts[i] += b.counts[i];
  a.sum += b.sum;
  a.count += b.count;
}

double estimate_quantile(const HistogramSnapshot& s, double q) {
  if (s.count == 0 || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  q = std::clamp(q, 0.0, 1.0);
  const double rank = q * static_cast<double>(s.count);
  std::uint64_t below = 0;  // observations in buckets before i
  for (std::size_t i = 0; i < s.bounds.size(); ++i) {
    const std::uint64_t in_bucket = s.counts[i];
    if (static_cast<double>(below + in_bucket) >= rank && in_bucket > 0) {
      const double lower = i == 0 ? std::min(0.0, s.bounds[0]) : s.bounds[i - 1];
      const double upper = s.bounds[i];
      const double fraction = (rank - static_cast<double>(below)) / static_cast<double>(in_bucket);
      return lower + (upper - lower) * std::clamp(fraction, 0.0, 1.0);
    }
    below += in_bucket;
  }
  // The rank lies in the +Inf bucket: the best we can say is "above the last bound".
  return s.bounds.empty() ? std::numeric_limits<double>::quiet_NaN() : s.bounds.back();
}

std::vector<double> latency_buckets_seconds() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

std::vector<double> attempt_buckets() { return {1, 2, 3, 4, 5, 6, 8, 10, 15, 20}; }

}  // namespace hookd::ops
