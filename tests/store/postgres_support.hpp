// Test support for the PostgreSQL backend: where the private test cluster is (HOOKD_PG_URL,
// or the file named by HOOKD_PG_URL_FILE that scripts/pg-test-cluster.sh wrote — the ctest
// fixture `pg_cluster` sets it), and fresh schemas per test, dropped when the test process
// exits. Thread-safety: call from the test's main thread.
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "store/postgres/pg_store.hpp"

namespace hookd::store::testing {

inline std::string pg_test_url() {
  if (const char* url = std::getenv("HOOKD_PG_URL"); url && *url) return url;
  const char* file = std::getenv("HOOKD_PG_URL_FILE");
  if (!file) return {};
  std::ifstream in(file);
  std::string url;
  std::getline(in, url);
  return url;
}

// Runs one SQL command on a fresh connection; false when it fails.
inline bool pg_run(const std::string& url, const std::string& sql) {
  PGconn* conn = PQconnectdb(url.c_str());
  bool ok = PQstatus(conn) == CONNECTION_OK;
  if (ok) {
    PQsetNoticeProcessor(
        conn, [](void*, const char*) {}, nullptr);
    PGresult* res = PQexec(conn, sql.c_str());
    ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
    PQclear(res);
  }
  PQfinish(conn);
  return ok;
}

// Hands out unique schema names and drops them all when the process exits.
class PgSchemas {
 public:
  static PgSchemas& instance() {
    static PgSchemas schemas;
    return schemas;
  }
  std::string fresh() {
    std::lock_guard lock(mu_);
    std::random_device rd;
    std::string name = "t_" + std::to_string(::getpid()) + "_" + std::to_string(rd() % 100000) +
                       "_" + std::to_string(names_.size());
    names_.push_back(name);
    return name;
  }
  ~PgSchemas() {
    const std::string url = pg_test_url();
    for (const auto& name : names_) pg_run(url, "DROP SCHEMA IF EXISTS " + name + " CASCADE");
  }

 private:
  std::mutex mu_;
  std::vector<std::string> names_;
};

inline std::unique_ptr<postgres::PgStore> open_pg_store(const std::string& schema, Clock& clock,
                                                        IdGenerator& ids, int pool_size = 4) {
  postgres::PgOptions opts;
  opts.url = pg_test_url();
  opts.schema = schema;
  opts.pool_size = pool_size;
  opts.application_name = "hookd-test-" + schema;  // tests may drop exactly their own sessions
  auto r = postgres::PgStore::open(opts, clock, ids);
  if (!r) {
    ADD_FAILURE() << "cannot open the PostgreSQL test store (" << opts.url
                  << "): " << r.error().message;
    return nullptr;
  }
  return std::move(*r);
}

}  // namespace hookd::store::testing
