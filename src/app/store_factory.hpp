// Opens the Store the configuration names: `database.url` is a SQLite file path (or
// ":memory:"), or postgres(ql)://... for the PostgreSQL backend (database.pool_size
// connections per node; several nodes may share the database).
// Does not migrate; the caller decides (serve and migrate both call Store::migrate()).
// Thread-safety: reentrant; the returned Store is thread-safe (see store/store.hpp).
#pragma once

#include <memory>
#include <string>

#include "config/config.hpp"
#include "hookd/env.hpp"
#include "hookd/result.hpp"
#include "store/id_generator.hpp"
#include "store/store.hpp"

namespace hookd::app {

// `clock` and `ids` must outlive the store.
Result<std::unique_ptr<store::Store>> open_store(const config::DatabaseConfig& database,
                                                 Clock& clock, store::IdGenerator& ids);

// `url` fit for logs: a PostgreSQL URL's password (user:PASSWORD@ or ?password=) replaced by
// "<redacted>"; SQLite paths unchanged.
std::string printable_database_url(const std::string& url);

}  // namespace hookd::app
