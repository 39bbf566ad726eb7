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

std::string printable_database_url(const std::string& url) {
  std::string out = url;
  const auto scheme_end = out.find("://");
  if (scheme_end == std::string::npos) return out;
  const auto at = out.find('@', scheme_end);
  const auto colon = out.find(':', scheme_end + 3);
  if (at != std::string::npos && colon != std::string::npos && colon < at) {
    out.replace(colon + 1, at - colon - 1, "<redacted>");
  }
  const auto pw = out.find("password=");
  if (pw != std::string::npos) {
    const auto end = out.find('&', pw);
    out.replace(pw + 9, (end == std::string::npos ? out.size() : end) - pw - 9, "<redacted>");
  }
  return out;
}

Result<std::unique_ptr<store::Store>> open_store(const config::DatabaseConfig& database,
                                                 Clock& clock, store::IdGenerator& ids) {
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

Result<std::unique_ptr<OpenedStore>> open_store(const config::Config& config) {
  auto opened = std::make_unique<OpenedStore>();
  auto store = open_store(config.database, opened->clock, opened->ids);
  if (!store) return std::unexpected(store.error());
  opened->store = std::move(*store);
  return opened;
}

}  // namespace hookd::app
