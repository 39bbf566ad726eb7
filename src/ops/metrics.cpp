// Metric families, the registry and its Prometheus text rendering.
#include "ops/metrics.hpp"

#include <cstdio>
#include <cstdlib>

#include "ops/prometheus_text.hpp"

namespace hookd::ops {
namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "hookd metrics: %s\n", what.c_str());
  std::abort();
}

enum class Kind { kCounter, kGauge, kHistogram, kCallbackGauge };

const char* type_name(Kind kind) {
  switch (kind) {
    case Kind::kCounter:
      return "counter";
    case Kind::kHistogram:
      return "histogram";
    case Kind::kGauge:
    case Kind::kCallbackGauge:
      return "gauge";
  }
  return "untyped";
}

void check_names(const std::string& name, const std::vector<std::string>& label_names) {
  if (!prom::valid_metric_name(name)) die("invalid metric name: " + name);
  for (const auto& label : label_names) {
    if (!prom::valid_label_name(label) || label == "le") {
      die("invalid label name '" + label + "' on " + name);
    }
  }
}

}  // namespace

template <class Metric>
Family<Metric>::Family(std::vector<std::string> label_names,
                       std::function<std::unique_ptr<Metric>()> make)
    : label_names_(std::move(label_names)), make_(std::move(make)) {
  if (label_names_.empty()) children_.emplace(LabelValues{}, make_());
}

template <class Metric>
Metric& Family<Metric>::with(const LabelValues& values) {
  if (values.size() != label_names_.size()) die("wrong number of label values");
  std::lock_guard lock(mu_);
  auto it = children_.find(values);
  if (it == children_.end()) it = children_.emplace(values, make_()).first;
  return *it->second;
}

template <class Metric>
std::vector<std::pair<LabelValues, const Metric*>> Family<Metric>::children() const {
  std::lock_guard lock(mu_);
  std::vector<std::pair<LabelValues, const Metric*>> out;
  out.reserve(children_.size());
  for (const auto& [values, metric] : children_) out.emplace_back(values, metric.get());
  return out;
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

struct Registry::Entry {
  Kind kind = Kind::kCounter;
  std::string name;
  std::string help;
  std::vector<std::string> label_names;
  std::vector<double> bounds;
  std::unique_ptr<CounterFamily> counters;
  std::unique_ptr<GaugeFamily> gauges;
  std::unique_ptr<HistogramFamily> histograms;
  GaugeCallback callback;

  bool same_shape(const Entry& other) const {
    return kind == other.kind && label_names == other.label_names && bounds == other.bounds;
  }
  void render(std::string& out) const;
};

namespace {

Registry::Entry make_entry(Kind kind, const std::string& help,
                           std::vector<std::string> label_names) {
  Registry::Entry e;
  e.kind = kind;
  e.help = help;
  e.label_names = std::move(label_names);
  return e;
}

}  // namespace

Registry::Registry() = default;
Registry::~Registry() = default;

Registry::Entry& Registry::add(const std::string& name, Entry entry) {
  check_names(name, entry.label_names);
  std::lock_guard lock(mu_);
  auto it = entries_.find(name);
  if (it != entries_.end()) {
    if (!it->second->same_shape(entry) || it->second->kind == Kind::kCallbackGauge) {
      die("metric registered twice with a different shape: " + name);
    }
    return *it->second;
  }
  entry.name = name;
  auto shared = std::make_shared<Entry>(std::move(entry));
  entries_.emplace(name, shared);
  return *shared;
}

CounterFamily& Registry::counter(const std::string& name, const std::string& help,
                                 std::vector<std::string> label_names) {
  Entry e = make_entry(Kind::kCounter, help, label_names);
  e.counters = std::make_unique<CounterFamily>(std::move(label_names),
                                               [] { return std::make_unique<Counter>(); });
  return *add(name, std::move(e)).counters;
}

GaugeFamily& Registry::gauge(const std::string& name, const std::string& help,
                             std::vector<std::string> label_names) {
  Entry e = make_entry(Kind::kGauge, help, label_names);
  e.gauges = std::make_unique<GaugeFamily>(std::move(label_names),
                                           [] { return std::make_unique<Gauge>(); });
  return *add(name, std::move(e)).gauges;
}

HistogramFamily& Registry::histogram(const std::string& name, const std::string& help,
                                     std::vector<double> bounds,
                                     std::vector<std::string> label_names) {
  Entry e = make_entry(Kind::kHistogram, help, label_names);
  e.bounds = bounds;
  e.histograms = std::make_unique<HistogramFamily>(
      std::move(label_names), [bounds] { return std::make_unique<Histogram>(bounds); });
  return *add(name, std::move(e)).histograms;
}

void Registry::gauge_callback(const std::string& name, const std::string& help,
                              std::vector<std::string> label_names, GaugeCallback callback) {
  Entry e = make_entry(Kind::kCallbackGauge, help, std::move(label_names));
  e.callback = std::move(callback);
  add(name, std::move(e));
}

void Registry::gauge_callback(const std::string& name, const std::string& help,
                              std::function<double()> callback) {
  gauge_callback(name, help, {}, [cb = std::move(callback)] {
    return std::vector<GaugeSample>{{{}, cb()}};
  });
}

void Registry::Entry::render(std::string& out) const {
  out += "# HELP " + name + " " + prom::escape_help(help) + "\n";
  out += "# TYPE " + name + " " + type_name(kind) + "\n";
  auto line = [&](const std::string& metric, const std::string& labels, const std::string& v) {
    out += metric + labels + " " + v + "\n";
  };
  switch (kind) {
    case Kind::kCounter:
      for (const auto& [values, c] : counters->children()) {
        line(name, prom::format_labels(label_names, values), std::to_string(c->value()));
      }
      break;
    case Kind::kGauge:
      for (const auto& [values, g] : gauges->children()) {
        line(name, prom::format_labels(label_names, values), prom::format_double(g->value()));
      }
      break;
    case Kind::kCallbackGauge:
      for (const auto& sample : callback()) {
        if (sample.label_values.size() != label_names.size()) die("callback label mismatch");
        line(name, prom::format_labels(label_names, sample.label_values),
             prom::format_double(sample.value));
      }
      break;
    case Kind::kHistogram:
      for (const auto& [values, h] : histograms->children()) {
        const HistogramSnapshot s = h->snapshot();
        // `name_bucket{a="x",le="` once per child; each bucket appends its bound and count.
        std::string prefix = prom::format_labels(label_names, values, "le", "");
        prefix.insert(0, name + "_bucket");
        prefix.resize(prefix.size() - 2);  // drop `"}`
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i <= s.bounds.size(); ++i) {
          cumulative += s.counts[i];
          out.append(prefix);
          out.append(i < s.bounds.size() ? prom::format_double(s.bounds[i]) : "+Inf");
          out.append("\"} ").append(std::to_string(cumulative)).append("\n");
        }
        const std::string labels = prom::format_labels(label_names, values);
        line(name + "_sum", labels, prom::format_double(s.sum));
        line(name + "_count", labels, std::to_string(s.count));
      }
      break;
  }
}

std::string Registry::render() const {
  std::vector<std::shared_ptr<Entry>> entries;
  {
    std::lock_guard lock(mu_);
    entries.reserve(entries_.size());
    for (const auto& [name, entry] : entries_) entries.push_back(entry);
  }
  std::string out;
  for (const auto& entry : entries) entry->render(out);
  return out;
}

}  // namespace hookd::ops
