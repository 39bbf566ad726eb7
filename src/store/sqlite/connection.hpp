// A thin RAII layer over one sqlite3 connection: pragmas at open, a per-connection cache of
// prepared statements, typed binding/reading, error mapping to hookd::Error, a transaction
// helper, and a FaultInjector hook consulted before every statement (tests use it to fail
// or "crash" at the Nth statement). Thread-safety: a Connection is used by one thread at a
// time; SqliteStore guards each one with a mutex.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "hookd/result.hpp"

namespace hookd::store::sqlite {

// Consulted before each statement starts executing (first step, or exec). Returning an
// error makes that statement fail as if SQLite had failed it. ROLLBACK is never consulted.
class FaultInjector {
 public:
  virtual ~FaultInjector() = default;
  virtual Status before_statement(std::string_view sql) = 0;
};

struct ConnectionOptions {
  std::string synchronous = "FULL";  // FULL (default, durable) | NORMAL | OFF
  int busy_timeout_ms = 5000;
  bool query_only = false;  // reader connections
  // PRAGMA wal_autocheckpoint (pages); -1 keeps SQLite's default, 0 turns it off (a
  // Checkpointer does it instead).
  int wal_autocheckpoint = -1;
  std::shared_ptr<FaultInjector> faults;
};

// Maps an SQLite result code to an ErrorCode (constraint -> kConflict, busy/locked/IO/full ->
// kUnavailable, else kInternal).
Error sqlite_error(sqlite3* db, int rc, std::string_view what);

class Connection;

// A prepared statement borrowed from the connection's cache; reset when destroyed.
class Stmt {
 public:
  Stmt(Connection* conn, sqlite3_stmt* stmt, bool* in_use, bool owned);
  Stmt(Stmt&& other) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& operator=(Stmt&&) = delete;
  ~Stmt();

  Stmt& bind(int index, std::int64_t v);
  Stmt& bind(int index, int v) { return bind(index, static_cast<std::int64_t>(v)); }
  Stmt& bind(int index, bool v) { return bind(index, static_cast<std::int64_t>(v ? 1 : 0)); }
  Stmt& bind(int index, std::string_view v);
  Stmt& bind(int index, const std::string& v) { return bind(index, std::string_view(v)); }
  Stmt& bind(int index, const char* v) { return bind(index, std::string_view(v)); }
  Stmt& bind(int index, std::nullopt_t);
  Stmt& bind_blob(int index, std::string_view bytes);
  template <class T>
  Stmt& bind(int index, const std::optional<T>& v) {
    return v ? bind(index, *v) : bind(index, std::nullopt);
  }
  // Binds parameters 1..N in order.
  template <class... A>
  Stmt& bind_all(const A&... args) {
    int i = 0;
    (bind(++i, args), ...);
    return *this;
  }

  Result<bool> step();  // true: a row is available
  Status run();         // steps to completion, ignoring rows

  // Column access on the current row: the `RowSource` the shared row readers take.
  bool is_null(int col) const;
  std::int64_t int64(int col) const;
  std::optional<std::int64_t> opt_int64(int col) const;
  std::string text(int col) const;
  std::optional<std::string> opt_text(int col) const;
  bool boolean(int col) const { return int64(col) != 0; }  // 0 / 1 INTEGER
  std::string bytes(int col) const;                        // BLOB, byte-exact

 private:
  Connection* conn_;
  sqlite3_stmt* stmt_;
  bool* in_use_;
  bool owned_;
  bool started_ = false;
};

class Connection {
 public:
  static Result<std::unique_ptr<Connection>> open(const std::string& path,
                                                  const ConnectionOptions& options);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Result<Stmt> prepare(std::string_view sql);  // cached per SQL text
  Status exec(std::string_view sql);           // uncached; may hold several statements
  std::int64_t changes() const;
  sqlite3* handle() const { return db_; }

  // Runs `body()` (returning Result<T>/Status) inside BEGIN IMMEDIATE ... COMMIT; rolls
  // back when the body or COMMIT fails.
  template <class F>
  auto transaction(F&& body) -> decltype(body()) {
    if (auto s = exec("BEGIN IMMEDIATE"); !s) return std::unexpected(s.error());
    auto r = body();
    if (!r) {
      rollback();
      return r;
    }
    if (auto s = exec("COMMIT"); !s) {
      rollback();
      return std::unexpected(s.error());
    }
    return r;
  }
  void rollback();

  Status check_fault(std::string_view sql);

 private:
  explicit Connection(sqlite3* db, std::shared_ptr<FaultInjector> faults);
  struct Cached {
    sqlite3_stmt* stmt = nullptr;
    bool in_use = false;
  };
  sqlite3* db_;
  std::shared_ptr<FaultInjector> faults_;
  std::unordered_map<std::string, std::unique_ptr<Cached>> cache_;
};

}  // namespace hookd::store::sqlite
