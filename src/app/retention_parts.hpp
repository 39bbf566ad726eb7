// The retention purger as the App runs it: store::RetentionPurger over the Store with
// purger_options(config), its passes logged (one line each: hookd.retention.pass, or a
// warning when a pass failed) and counted in the hookd_retention_* metrics
// (docs/observability.md): rows and oldest row per kind after each pass, purged rows,
// passes by result, the last pass's time, pages given back.
// Thread-safety: build/start/stop from one thread; the report runs on the purger's thread
// and touches only thread-safe metrics and the logger.
#pragma once

#include <memory>

#include "config/config.hpp"
#include "hookd/env.hpp"
#include "ops/log.hpp"
#include "ops/metrics.hpp"
#include "store/retention_purger.hpp"
#include "store/store.hpp"

namespace hookd::app {

// `store`, `clock`, `registry` and `logger` must outlive the purger.
std::unique_ptr<store::RetentionPurger> build_retention_purger(const config::Config& config,
                                                               store::Store& store, Clock& clock,
                                                               ops::Registry& registry,
                                                               const ops::Logger& logger);

}  // namespace hookd::app
