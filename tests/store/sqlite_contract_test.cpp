// Registers the SQLite backend with the Store contract suite: a temp file (exercises the
// reader pool and WAL) and ":memory:" (reads go through the writer).
#include "store/sqlite/sqlite_store.hpp"
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

std::unique_ptr<Store> open_sqlite(const std::string& path, Clock& clock, IdGenerator& ids) {
  sqlite::SqliteOptions opts;
  opts.path = path;
  opts.readers = 2;
  auto r = sqlite::SqliteStore::open(opts, clock, ids);
  EXPECT_TRUE(r.has_value()) << r.error().message;
  return r ? std::move(*r) : nullptr;
}

const bool kFileRegistered = register_store_factory(StoreFactory{
    "SqliteFile", [](const std::filesystem::path& dir, Clock& clock, IdGenerator& ids) {
      return open_sqlite((dir / "hookd.db").string(), clock, ids);
    }});

const bool kMemoryRegistered = register_store_factory(
    StoreFactory{"SqliteMemory", [](const std::filesystem::path&, Clock& clock, IdGenerator& ids) {
                   return open_sqlite(":memory:", clock, ids);
                 }});

}  // namespace
}  // namespace hookd::store::testing
