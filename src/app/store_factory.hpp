// Opens the Store the configuration names: `database.url` is a SQLite file path (or
// ":memory:"), or postgres(ql)://... for the PostgreSQL backend (database.pool_size
// connections per node; several nodes may share the database). open_store(Config) is the
// one way hookd opens its database — `hookd serve` (App) and the CLI's migrate, dlq and
// inbox — with the system clock and hookd's id generator.
// Does not migrate; the caller decides (serve and migrate both call Store::migrate()).
// Thread-safety: reentrant; the returned Store is thread-safe (see store/store.hpp).
#pragma once

#include <memory>
#include <string>

#include "config/config.hpp"
#include "env/system_env.hpp"
#include "hookd/env.hpp"
#include "hookd/result.hpp"
#include "store/id_generator.hpp"
#include "store/store.hpp"

namespace hookd::app {

// An open store with the clock, randomness and id generator it uses. Neither copied nor moved: the
// store keeps references to the two.
struct OpenedStore {
  OpenedStore() = default;
  OpenedStore(const OpenedStore&) = delete;
  OpenedStore& operator=(const OpenedStore&) = delete;

  // The daemon's one clock and one source of randomness (hookd serve passes them everywhere).
  env::SystemClock clock;
  env::SystemRandom random;
  store::RandomIdGenerator ids{clock, random};  // time-sortable, monotonic within a millisecond
  std::unique_ptr<store::Store> store;          // last: destroyed first
};

// The store `config.database` names, with the system clock and a RandomIdGenerator.
Result<std::unique_ptr<OpenedStore>> open_store(const config::Config& config);

// The same with a given clock and id generator (tests use fakes); both must outlive the store.
Result<std::unique_ptr<store::Store>> open_store(const config::DatabaseConfig& database,
                                                 Clock& clock, store::IdGenerator& ids);

// `url` fit for logs: a PostgreSQL URL's password (user:PASSWORD@ or ?password=) replaced by
// "<redacted>"; SQLite paths unchanged.
std::string printable_database_url(const std::string& url);

}  // namespace hookd::app
