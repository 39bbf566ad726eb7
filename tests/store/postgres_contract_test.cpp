// Registers the PostgreSQL backend with the Store contract suite: every contract test runs
// in a fresh schema of the private test cluster (ctest fixture `pg_cluster`, label `pg`).
#include "store/postgres_support.hpp"
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

const bool kRegistered = register_store_factory(StoreFactory{
    "Postgres", [](const std::filesystem::path&, Clock& clock, IdGenerator& ids) {
      std::unique_ptr<Store> store = open_pg_store(PgSchemas::instance().fresh(), clock, ids);
      return store;
    }});

}  // namespace
}  // namespace hookd::store::testing
