// EndpointGate::admit() cost: the question the dispatcher asks before every delivery.
// Admitted path (admit + finish), refused paths (rate limited, circuit open, concurrency
// cap), and the rate limiter alone. Simulated time advances 1 ms per iteration where noted.
#include <benchmark/benchmark.h>

#include "core/endpoint_gate.hpp"

namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const hookd::TimePoint kStart = hookd::TimePoint(seconds(1'700'000'000));

hookd::EndpointGate make_gate(std::uint32_t per_second, std::uint32_t max_in_flight) {
  hookd::EndpointGateConfig config;
  config.rate.per_second = per_second;
  config.max_in_flight = max_in_flight;
  return *hookd::EndpointGate::create(config, kStart);
}

// Every check passes and is committed: breaker permit, slot, token; then finish().
void BM_GateAdmitAndFinish(benchmark::State& state) {
  hookd::EndpointGate gate = make_gate(1'000'000, 8);
  hookd::TimePoint now = kStart;
  for (auto _ : state) {
    now += milliseconds(1);
    const hookd::Admission admission = gate.admit(now);
    benchmark::DoNotOptimize(admission);
    gate.finish(admission.permit, hookd::EndpointHealth::kHealthy, now, 0.5);
  }
}
BENCHMARK(BM_GateAdmitAndFinish);

void BM_GateAdmitRateLimited(benchmark::State& state) {
  hookd::EndpointGate gate = make_gate(1, 8);
  (void)gate.admit(kStart);  // spends the only token
  for (auto _ : state) benchmark::DoNotOptimize(gate.admit(kStart));
}
BENCHMARK(BM_GateAdmitRateLimited);

void BM_GateAdmitCircuitOpen(benchmark::State& state) {
  hookd::EndpointGate gate = make_gate(0, 8);
  // The default breaker opens on a sustained rate: a failure every 500 ms for 15 s.
  hookd::TimePoint now = kStart;
  for (int i = 0; i <= 30; ++i, now += milliseconds(500)) {
    const hookd::Admission admission = gate.admit(now);
    gate.finish(admission.permit, hookd::EndpointHealth::kFailed, now, 0.5);
  }
  for (auto _ : state) benchmark::DoNotOptimize(gate.admit(now));
}
BENCHMARK(BM_GateAdmitCircuitOpen);

void BM_GateAdmitConcurrencyCap(benchmark::State& state) {
  hookd::EndpointGate gate = make_gate(0, 1);
  (void)gate.admit(kStart);  // takes the only slot
  for (auto _ : state) benchmark::DoNotOptimize(gate.admit(kStart));
}
BENCHMARK(BM_GateAdmitConcurrencyCap);

void BM_RateLimiterTryAcquire(benchmark::State& state) {
  hookd::RateLimiter limiter({.per_second = 1000}, kStart);
  hookd::TimePoint now = kStart;
  for (auto _ : state) {
    now += milliseconds(1);
    benchmark::DoNotOptimize(limiter.try_acquire(now));
  }
}
BENCHMARK(BM_RateLimiterTryAcquire);

}  // namespace
