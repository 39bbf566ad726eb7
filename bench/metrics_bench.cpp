// Micro-benchmarks for src/ops: metric updates on the hot path, /metrics rendering, masking
// and log-line formatting (the logging path), with a std::regex baseline for the masking.
#include <benchmark/benchmark.h>
#include <spdlog/sinks/null_sink.h>

#include <regex>
#include <string>

#include "ops/log.hpp"
#include "ops/masking.hpp"
#include "ops/metrics.hpp"

namespace {

using namespace hookd::ops;

Registry& shared_registry() {
  static Registry registry;
  return registry;
}

void BM_CounterInc(benchmark::State& state) {
  Counter& c = shared_registry().counter("hookd_bench_total", "b", {"outcome"}).with({"ok"});
  for (auto _ : state) c.inc();
}
BENCHMARK(BM_CounterInc)->Threads(1)->Threads(4);

void BM_CounterWithLookup(benchmark::State& state) {
  auto& family = shared_registry().counter("hookd_bench_lookup_total", "b", {"outcome"});
  for (auto _ : state) family.with({"delivered"}).inc();
}
BENCHMARK(BM_CounterWithLookup)->Threads(1)->Threads(4);

void BM_HistogramObserve(benchmark::State& state) {
  Histogram& h =
      shared_registry().histogram("hookd_bench_seconds", "b", latency_buckets_seconds()).get();
  double v = 0.0001;
  for (auto _ : state) {
    h.observe(v);
    v = v > 50 ? 0.0001 : v * 1.7;
  }
}
BENCHMARK(BM_HistogramObserve)->Threads(1)->Threads(4);

void BM_Render(benchmark::State& state) {
  Registry registry;
  for (int f = 0; f < 10; ++f) {
    auto& counters = registry.counter("hookd_c" + std::to_string(f) + "_total", "c", {"endpoint"});
    auto& hist = registry.histogram("hookd_h" + std::to_string(f) + "_seconds", "h",
                                    latency_buckets_seconds(), {"endpoint"});
    for (int e = 0; e < 10; ++e) {
      counters.with({"ep_" + std::to_string(e)}).inc(e);
      hist.with({"ep_" + std::to_string(e)}).observe(0.01 * e);
    }
  }
  for (auto _ : state) benchmark::DoNotOptimize(registry.render());
}
BENCHMARK(BM_Render);

const std::string kPlainLine = "delivery.failed endpoint ep_2Xb9c8 returned 503 after 3 attempts";
const std::string kPiiLine =
    "customer alice@example.com phone 13812345678 id 110101199003071234 Bearer abc.def";

void BM_MaskTextPlain(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(mask_text(kPlainLine));
}
BENCHMARK(BM_MaskTextPlain);

void BM_MaskTextPii(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(mask_text(kPiiLine));
}
BENCHMARK(BM_MaskTextPii);

// Baseline: std::regex compiled once, e-mail and mobile only (fewer rules than mask_text).
void BM_RegexBaselinePii(benchmark::State& state) {
  static const std::regex email(
      R"(([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,}))");
  static const std::regex mobile(R"(\b(1[3-9]\d)\d{4}(\d{4})\b)");
  for (auto _ : state) {
    std::string s = std::regex_replace(kPiiLine, email, "$1***@$2");
    benchmark::DoNotOptimize(std::regex_replace(s, mobile, "$1****$2"));
  }
}
BENCHMARK(BM_RegexBaselinePii);

const std::string kPayload = R"({"type":"order.paid","timestamp":"2026-11-29T20:04:00Z",
  "data":{"id":"ord_2Xb9c8","amount":1999,"currency":"CNY","customer":{"name":"张三",
  "email":"zhang.san@example.com","phone":"13812345678","address":{"city":"Beijing",
  "line1":"1 Chang'an Ave"}},"items":[{"sku":"A-1","qty":2,"price":500},
  {"sku":"B-7","qty":1,"price":999}],"note":"leave at the door, call before delivery"}})";

void BM_MaskJsonPayload(benchmark::State& state) {
  const Masker masker = *Masker::create({.json_pointers = {"/data/customer/name"}});
  for (auto _ : state) benchmark::DoNotOptimize(masker.mask_json_text(kPayload));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kPayload.size()));
}
BENCHMARK(BM_MaskJsonPayload);

void BM_LogLineJson(benchmark::State& state) {
  Logger logger({}, std::make_shared<spdlog::sinks::null_sink_mt>());
  for (auto _ : state) {
    logger.info("delivery.failed",
                {{"endpoint", "ep_2Xb9c8"}, {"status", 503}, {"attempt", 3}, {"error", "timeout"}});
  }
}
BENCHMARK(BM_LogLineJson);

void BM_LogLineFiltered(benchmark::State& state) {
  Logger logger({.level = LogLevel::kWarn}, std::make_shared<spdlog::sinks::null_sink_mt>());
  for (auto _ : state) logger.debug("delivery.attempt", {{"endpoint", "ep_2Xb9c8"}});
}
BENCHMARK(BM_LogLineFiltered);

}  // namespace
