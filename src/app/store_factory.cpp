#include "app/store_factory.hpp"

#include <algorithm>

#include "store/postgres/pg_store.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::app {
namespace {

std::string synchronous_pragma(config::SqliteSynchronous mode) {
  switch (mode) {
    case config::SqliteSynchronous::kNormal:
      return "NORMAL";
    case config::SqliteSynchronous::kFull:
      return "FULL";
    case config::SqliteSynchronous::kExtra:
      return "EXTRA";
  }
  return "FULL";
}

}  // namespace

Result<std::unique_ptr<store::Store>> open_store(const config::DatabaseConfig& database,
                                                 store::Clock& clock, store::IdGenerator& ids) {
  if (database.kind() == config::DatabaseKind::kPostgres) {
    store::postgres::PgOptions options;
    options.url = database.url;
    options.pool_size = std::max(1, database.pool_size);
    auto opened = store::postgres::PgStore::open(options, clock, ids);
    if (!opened) return std::unexpected(opened.error());
    return std::unique_ptr<store::Store>(std::move(*opened));
  }
  store::sqlite::SqliteOptions options;
  options.path = database.url;
  options.synchronous = synchronous_pragma(database.sqlite_synchronous);
  options.busy_timeout_ms = static_cast<int>(database.busy_timeout.count());
  options.readers = std::max(1, database.pool_size);
  auto opened = store::sqlite::SqliteStore::open(options, clock, ids);
  if (!opened) return std::unexpected(opened.error());
  return std::unique_ptr<store::Store>(std::move(*opened));
}

}  // namespace hookd::app
