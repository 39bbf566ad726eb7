// Metrics: a small registry of counters, gauges and histograms, rendered in the Prometheus
// text exposition format 0.0.4 for `/metrics` and read directly by the console.
//
// Hot path: `family.with({"delivered"})` returns a reference that stays valid for the life of
// the Registry; keep it and update it without any hashing or locking. Counter and histogram
// updates are single atomic adds (histogram sums use a CAS loop on an atomic<double>).
// Label values given to `with` are in the order of the label names declared at creation.
// Programming errors (bad metric or label names, wrong number of label values, the same name
// registered with a different shape) abort: they are bugs found at startup, not runtime input.
//
// Thread-safety: every type here may be used from any number of threads. Registration and
// `with` take a mutex; updates are lock-free; `render` copies the family list under the
// registry mutex and then calls gauge callbacks without holding it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace hookd::ops {

class Counter {
 public:
  void inc(std::uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> value_{0};
};

class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void add(double v) { value_.fetch_add(v, std::memory_order_relaxed); }
  void sub(double v) { value_.fetch_add(-v, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

// A copy of a histogram's state. counts[i] is the number of observations in bucket i alone
// (not cumulative); counts has bounds.size() + 1 entries, the last one being the +Inf bucket.
struct HistogramSnapshot {
  std::vector<double> bounds;
  std::vector<std::uint64_t> counts;
  double sum = 0.0;
  std::uint64_t count = 0;  // sum of counts; read from the buckets so the two always agree
};

// Adds b into a (same bounds required; aborts otherwise). Used to aggregate over labels.
void merge_into(HistogramSnapshot& a, const HistogramSnapshot& b);

// Estimates the q-quantile (0 <= q <= 1) like Prometheus' histogram_quantile: finds the bucket
// holding rank q*count and interpolates linearly inside it (the first bucket starts at 0).
// Ranks falling into the +Inf bucket return the largest finite bound. NaN when empty.
double estimate_quantile(const HistogramSnapshot& snapshot, double q);

class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);  // strictly increasing, finite
  void observe(double v);                          // NaN is ignored
  HistogramSnapshot snapshot() const;
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;  // bounds_.size() + 1
  std::atomic<double> sum_{0.0};
};

// Latency buckets in seconds, 1 ms … 60 s.
std::vector<double> latency_buckets_seconds();
// Buckets for small counts such as attempts per delivery: 1, 2, 3, 4, 5, 6, 8, 10, 15, 20.
std::vector<double> attempt_buckets();

using LabelValues = std::vector<std::string>;

// A metric with a fixed list of label names and one child per distinct label-value tuple.
// An unlabelled family has exactly one child, created at registration.
template <class Metric>
class Family {
 public:
  Family(std::vector<std::string> label_names, std::function<std::unique_ptr<Metric>()> make);
  Metric& with(const LabelValues& values);
  Metric& get() { return with({}); }  // the single child of an unlabelled family
  const std::vector<std::string>& label_names() const { return label_names_; }
  // Children sorted by label values; references stay valid for the family's lifetime.
  std::vector<std::pair<LabelValues, const Metric*>> children() const;

 private:
  std::vector<std::string> label_names_;
  std::function<std::unique_ptr<Metric>()> make_;
  mutable std::mutex mu_;
  std::map<LabelValues, std::unique_ptr<Metric>> children_;
};

using CounterFamily = Family<Counter>;
using GaugeFamily = Family<Gauge>;
using HistogramFamily = Family<Histogram>;

// One sample returned by a scrape-time gauge callback.
struct GaugeSample {
  LabelValues label_values;
  double value = 0.0;
};
using GaugeCallback = std::function<std::vector<GaugeSample>()>;

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Get-or-create: the same name with the same shape returns the existing family.
  CounterFamily& counter(const std::string& name, const std::string& help,
                         std::vector<std::string> label_names = {});
  GaugeFamily& gauge(const std::string& name, const std::string& help,
                     std::vector<std::string> label_names = {});
  HistogramFamily& histogram(const std::string& name, const std::string& help,
                             std::vector<double> bounds, std::vector<std::string> label_names = {});

  // Gauges computed on scrape (queue depth, age of the oldest dead letter). The callback runs
  // on the scraping thread, without registry locks held; it must not block for long.
  void gauge_callback(const std::string& name, const std::string& help,
                      std::vector<std::string> label_names, GaugeCallback callback);
  void gauge_callback(const std::string& name, const std::string& help,
                      std::function<double()> callback);

  // Prometheus text format 0.0.4, families sorted by name, children by label values.
  std::string render() const;

  struct Entry;  // one registered family (defined in metrics.cpp)

 private:
  Entry& add(const std::string& name, Entry entry);
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
};

// Content-Type of render()'s output.
inline constexpr std::string_view kPrometheusContentType =
    "text/plain; version=0.0.4; charset=utf-8";

}  // namespace hookd::ops
