// PostgreSQL helpers for the end-to-end tests on several nodes (label pg): the shared test
// cluster's URL (ctest fixture pg_cluster), a fresh database per test, and a private cluster
// a test may stop and start (A27) through scripts/pg-test-cluster.sh.
// Thread-safety: use from the test's thread.
#pragma once

#include <libpq-fe.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>
#include <utility>

namespace hookd::e2e {

// Joins pieces without `"literal" + std::string&&`, which trips g++ 12's -Wrestrict at -O3.
inline std::string concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

inline std::string read_first_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

// The shared test cluster (HOOKD_PG_URL, or the file HOOKD_PG_URL_FILE names).
inline std::string pg_shared_url() {
  if (const char* url = std::getenv("HOOKD_PG_URL"); url && *url) return url;
  const char* file = std::getenv("HOOKD_PG_URL_FILE");
  return file ? read_first_line(file) : std::string();
}

// Runs `sql` on its own connection and hands the result to `on_result` (not called when the
// connection fails); returns what `on_result` returns, or `on_error` without a connection.
template <class T, class F>
T pg_with_result(const std::string& url, const std::string& sql, T on_error, F&& on_result) {
  PGconn* conn = PQconnectdb(url.c_str());
  T out = std::move(on_error);
  if (PQstatus(conn) == CONNECTION_OK) {
    PQsetNoticeProcessor(
        conn, [](void*, const char*) {}, nullptr);
    PGresult* res = PQexec(conn, sql.c_str());
    out = on_result(res);
    PQclear(res);
  }
  PQfinish(conn);
  return out;
}

inline bool pg_exec(const std::string& url, const std::string& sql) {
  return pg_with_result(url, sql, false, [](PGresult* res) {
    return PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;
  });
}

// The rows of `sql` as text, one line per row, columns separated by " | " (diagnostics).
inline std::string pg_dump_rows(const std::string& url, const std::string& sql) {
  return pg_with_result(url, sql, std::string(), [](PGresult* res) {
    if (PQresultStatus(res) != PGRES_TUPLES_OK) return std::string(PQresultErrorMessage(res));
    std::string out;
    for (int r = 0; r < PQntuples(res); ++r) {
      for (int c = 0; c < PQnfields(res); ++c) {
        out.append(c ? " | " : "").append(PQgetisnull(res, r, c) ? "NULL" : PQgetvalue(res, r, c));
      }
      out.push_back('\n');
    }
    return out;
  });
}

// "postgresql://u@h:p/postgres" -> same server, database `db`.
inline std::string with_database(const std::string& url, const std::string& db) {
  return url.substr(0, url.rfind('/') + 1) + db;
}

// A fresh database on the shared cluster, dropped at the end of the test.
class PgTestDatabase {
 public:
  PgTestDatabase() : server_(pg_shared_url()) {
    std::random_device rd;
    name_ = concat({"e2e_", std::to_string(::getpid()), "_", std::to_string(rd() % 1000000)});
    ok_ = !server_.empty() && pg_exec(server_, "CREATE DATABASE " + name_);
  }
  ~PgTestDatabase() {
    if (ok_) pg_exec(server_, "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
  }
  PgTestDatabase(const PgTestDatabase&) = delete;
  PgTestDatabase& operator=(const PgTestDatabase&) = delete;
  bool ok() const { return ok_; }
  std::string url() const { return with_database(server_, name_); }

 private:
  std::string server_;
  std::string name_;
  bool ok_ = false;
};

// A private cluster of its own (scripts/pg-test-cluster.sh), stopped and removed at the end.
class PgPrivateCluster {
 public:
  PgPrivateCluster() {
    std::string pattern = (std::filesystem::temp_directory_path() / "hookd-pgc-XXXXXX").string();
    state_ = ::mkdtemp(pattern.data()) ? pattern : std::string();
    ok_ = !state_.empty() && run("start");
  }
  ~PgPrivateCluster() {
    run("stop");
    std::error_code ignored;
    std::filesystem::remove_all(state_, ignored);
  }
  PgPrivateCluster(const PgPrivateCluster&) = delete;
  PgPrivateCluster& operator=(const PgPrivateCluster&) = delete;
  bool ok() const { return ok_; }
  std::string url() const { return read_first_line(state_ / "url"); }
  bool stop_server() { return run("server-stop"); }
  bool start_server() { return run("server-start"); }

 private:
  bool run(const std::string& command) {
    const std::string line =
        std::string(HOOKD_PG_SCRIPT) + " " + command + " " + state_.string() + " >/dev/null 2>&1";
    return std::system(line.c_str()) == 0;
  }
  std::filesystem::path state_;
  bool ok_ = false;
};

}  // namespace hookd::e2e
