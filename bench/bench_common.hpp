// Small helpers shared by the benchmark tools (hookd_bench_sink, hookd_bench_loadgen):
// wall-clock time in Unix nanoseconds, a histogram rendered as JSON in microseconds, and
// writing a file atomically (port files are polled by bench/run.sh).
// Thread-safety: stateless functions.
#pragma once

#include <sys/resource.h>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "latency_histogram.hpp"

namespace hookd::bench {

// CLOCK_REALTIME in ns: the sink and the load generator run on the same machine, so a
// timestamp written by one can be compared with the other's clock.
inline std::int64_t unix_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Rounds to `decimals` places (for readable JSON: 12.3, not 12.300000000000001).
inline double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

// {"samples", "p50", "p90", "p99", "p999", "max", "mean"}; latencies in microseconds.
inline nlohmann::json latency_json(const LatencyHistogram& h) {
  auto us = [](std::uint64_t ns) { return round_to(static_cast<double>(ns) / 1000.0, 1); };
  return {{"samples", h.count()},
          {"p50_us", us(h.percentile(0.50))},
          {"p90_us", us(h.percentile(0.90))},
          {"p99_us", us(h.percentile(0.99))},
          {"p999_us", us(h.percentile(0.999))},
          {"max_us", us(h.max())},
          {"mean_us", round_to(h.mean() / 1000.0, 1)}};
}

// CPU seconds (user + system) this process used so far.
inline double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Writes `text` to `path` via a temporary file and rename, so readers never see half of it.
inline bool write_file_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!(out << text)) return false;
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

}  // namespace hookd::bench
