// The scrape-time gauges that read the store (queue depth, dead letters, age of the oldest
// dead letter), registered with ops::add_store_gauges. A failing store read gives NaN, which
// Prometheus shows as a gap rather than a misleading zero.
// Thread-safety: the callbacks run on the scraping thread and only call the thread-safe
// Store; `store` and `clock` must outlive the registry's use of them.
#pragma once

#include "app/store_health.hpp"
#include "hookd/env.hpp"
#include "ops/metrics.hpp"
#include "store/store.hpp"

namespace hookd::app {

// `health` (whether commits fail) must outlive the registry's use of it too.
void register_store_gauges(ops::Registry& registry, store::Store& store, Clock& clock,
                           const StoreHealth& health);

}  // namespace hookd::app
