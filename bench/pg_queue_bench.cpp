// The PostgreSQL store's own ceiling for the outbound path, without HTTP: group-committed
// publishes (publish_batch of 100, 1 KiB payloads) and the dispatcher's store work per
// delivery (claim_due of 100 + record_attempts of 100), with 1 and 2 "nodes" (PgStore
// instances, each with its own pool, on their own threads). Needs HOOKD_PG_URL (bench/run_pg.sh
// sets it); skipped otherwise.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include "env/system_env.hpp"
#include "store/id_generator.hpp"
#include "store/postgres/pg_store.hpp"

namespace {

using namespace hookd::store;
using hookd::Clock;
namespace env = hookd::env;

constexpr int kMessages = 20'000;
constexpr int kBatch = 100;

std::unique_ptr<postgres::PgStore> open_node(const std::string& schema, Clock& clock,
                                             IdGenerator& ids) {
  postgres::PgOptions opts;
  opts.url = std::getenv("HOOKD_PG_URL");
  opts.schema = schema;
  opts.pool_size = 4;
  auto r = postgres::PgStore::open(opts, clock, ids);
  return r ? std::move(*r) : nullptr;
}

std::string fresh_schema() {
  std::random_device rd;
  return "bench_" + std::to_string(rd() % 1'000'000'000);
}

// Seeds kMessages messages (one endpoint, so one delivery each); returns messages/s.
double seed(Store& store) {
  Application app;
  app.name = "bench";
  auto created = store.create_application(app);
  Endpoint ep;
  ep.app_id = created->id;
  ep.url = "http://127.0.0.1:9/hook";
  ep.secrets.current = "whsec_c2VjcmV0";
  store.create_endpoint(ep);
  std::vector<NewMessage> batch(kBatch);
  for (auto& m : batch) {
    m.app_id = created->id;
    m.event_type = "bench.event";
    m.payload = std::string(1024, 'x');
  }
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kMessages / kBatch; ++i) store.publish_batch(batch);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  return kMessages / took.count();
}

void BM_PgDeliveriesPerSecond(benchmark::State& state) {
  if (std::getenv("HOOKD_PG_URL") == nullptr) {
    state.SkipWithError("HOOKD_PG_URL not set");
    return;
  }
  const int nodes = static_cast<int>(state.range(0));
  env::SystemClock clock;
  env::SystemRandom random;
  RandomIdGenerator ids(clock, random);
  for (auto _ : state) {
    state.PauseTiming();
    const std::string schema = fresh_schema();
    std::vector<std::unique_ptr<postgres::PgStore>> stores;
    for (int n = 0; n < nodes; ++n) stores.push_back(open_node(schema, clock, ids));
    if (!stores[0] || !stores[0]->migrate()) {
      state.SkipWithError("cannot open or migrate the PostgreSQL store");
      return;
    }
    state.counters["publish_msgs_per_s"] = seed(*stores[0]);
    state.ResumeTiming();
    std::atomic<int> delivered{0};
    std::vector<std::thread> workers;
    for (int n = 0; n < nodes; ++n) {
      workers.emplace_back([&, n] {
        const std::string owner = "node" + std::to_string(n);
        for (;;) {
          auto claimed = stores[n]->claim_due({owner, 30'000, kBatch});
          if (!claimed || claimed->empty()) return;
          std::vector<AttemptReport> reports;
          for (const auto& d : *claimed) {
            AttemptReport r;
            r.delivery_id = d.id;
            r.lease_owner = owner;
            r.attempt.response_status = 200;
            r.attempt.duration_ms = 1;
            r.next = AttemptReport::Next::kDelivered;
            reports.push_back(std::move(r));
          }
          stores[n]->record_attempts(reports);
          delivered += static_cast<int>(claimed->size());
        }
      });
    }
    for (auto& w : workers) w.join();
    state.SetItemsProcessed(state.items_processed() + delivered.load());
  }
}
BENCHMARK(BM_PgDeliveriesPerSecond)
    ->Arg(1)
    ->Arg(2)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
