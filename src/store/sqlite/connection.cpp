#include "store/sqlite/connection.hpp"

#include <fmt/format.h>

#include <cassert>
#include <mutex>

namespace hookd::store::sqlite {

Error sqlite_error(sqlite3* db, int rc, std::string_view what) {
  const char* msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  std::string text = fmt::format("{}: {} (sqlite {})", what, msg, rc);
  switch (rc & 0xff) {
    case SQLITE_CONSTRAINT:
      return Error{ErrorCode::kConflict, std::move(text)};
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_PROTOCOL:
    case SQLITE_READONLY:
      return Error{ErrorCode::kUnavailable, std::move(text)};
    default:
      return Error{ErrorCode::kInternal, std::move(text)};
  }
}

// ---- Stmt ----

Stmt::Stmt(Connection* conn, sqlite3_stmt* stmt, bool* in_use, bool owned)
    : conn_(conn), stmt_(stmt), in_use_(in_use), owned_(owned) {}

Stmt::Stmt(Stmt&& other) noexcept
    : conn_(other.conn_),
      stmt_(other.stmt_),
      in_use_(other.in_use_),
      owned_(other.owned_),
      started_(other.started_) {
  other.stmt_ = nullptr;
  other.in_use_ = nullptr;
}

Stmt::~Stmt() {
  if (stmt_ == nullptr) return;
  if (owned_) {
    sqlite3_finalize(stmt_);
    return;
  }
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  if (in_use_ != nullptr) *in_use_ = false;
}

Stmt& Stmt::bind(int index, std::int64_t v) {
  sqlite3_bind_int64(stmt_, index, v);
  return *this;
}

Stmt& Stmt::bind(int index, std::string_view v) {
  sqlite3_bind_text64(stmt_, index, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}

Stmt& Stmt::bind(int index, std::nullopt_t) {
  sqlite3_bind_null(stmt_, index);
  return *this;
}

Stmt& Stmt::bind_blob(int index, std::string_view bytes) {
  // A zero-length blob must still be a blob, not NULL: pass a non-null pointer.
  static const char kEmpty = 0;
  sqlite3_bind_blob64(stmt_, index, bytes.empty() ? &kEmpty : bytes.data(), bytes.size(),
                      SQLITE_TRANSIENT);
  return *this;
}

Result<bool> Stmt::step() {
  if (!started_) {
    started_ = true;
    if (auto s = conn_->check_fault(sqlite3_sql(stmt_)); !s) return std::unexpected(s.error());
  }
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return std::unexpected(sqlite_error(conn_->handle(), rc, "step"));
}

Status Stmt::run() {
  for (;;) {
    auto r = step();
    if (!r) return std::unexpected(r.error());
    if (!*r) return {};
  }
}

bool Stmt::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

std::int64_t Stmt::int64(int col) const { return sqlite3_column_int64(stmt_, col); }

std::optional<std::int64_t> Stmt::opt_int64(int col) const {
  if (is_null(col)) return std::nullopt;
  return int64(col);
}

std::string Stmt::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)));
}

std::optional<std::string> Stmt::opt_text(int col) const {
  if (is_null(col)) return std::nullopt;
  return text(col);
}

std::string Stmt::bytes(int col) const {
  const auto* p = sqlite3_column_blob(stmt_, col);
  if (p == nullptr) return {};
  return std::string(static_cast<const char*>(p),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)));
}

// ---- Connection ----

Connection::Connection(sqlite3* db, std::shared_ptr<FaultInjector> faults)
    : db_(db), faults_(std::move(faults)) {}

Connection::~Connection() {
  for (auto& [sql, cached] : cache_) {
    assert(!cached->in_use);
    sqlite3_finalize(cached->stmt);
  }
  // close_v2: an open transaction is rolled back, as after a crash.
  sqlite3_close_v2(db_);
}

namespace {

// SQLite counts every allocation under one process-wide mutex unless memory statistics are
// off (a profile showed that mutex in every statement); hookd never reads those statistics.
// Must run before SQLite initializes, hence before the first open.
void configure_sqlite_once() {
  static std::once_flag once;
  std::call_once(once, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

}  // namespace

Result<std::unique_ptr<Connection>> Connection::open(const std::string& path,
                                                     const ConnectionOptions& options) {
  configure_sqlite_once();
  sqlite3* db = nullptr;
  const int flags =
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    Error e = sqlite_error(db, rc, "open " + path);
    sqlite3_close_v2(db);
    return std::unexpected(e);
  }
  std::unique_ptr<Connection> conn(new Connection(db, nullptr));
  sqlite3_busy_timeout(db, options.busy_timeout_ms);
  sqlite3_extended_result_codes(db, 1);
  // temp_store=MEMORY: statement journals (every savepoint and multi-row statement in a
  // transaction keeps the pages it changes there) and sort b-trees stay in memory instead of
  // temporary files — a profile showed a third of the writer's time in pwrite() to them.
  // They hold one transaction's changes at most, so the memory is small and short-lived.
  // auto_vacuum=INCREMENTAL first: it only takes on a new, empty file and only before the
  // switch to WAL; then the retention purger can give freed pages back (reclaim_space). An
  // existing database keeps its mode (NONE before version 12: it reuses free pages instead).
  std::string pragmas = fmt::format(
      "PRAGMA auto_vacuum=INCREMENTAL; PRAGMA journal_mode=WAL; PRAGMA synchronous={}; "
      "PRAGMA foreign_keys=ON; "
      "PRAGMA temp_store=MEMORY;",
      options.synchronous);
  if (options.query_only) pragmas += " PRAGMA query_only=1;";
  if (options.wal_autocheckpoint >= 0) {
    pragmas += fmt::format(" PRAGMA wal_autocheckpoint={};", options.wal_autocheckpoint);
  }
  if (auto s = conn->exec(pragmas); !s) return std::unexpected(s.error());
  conn->faults_ = options.faults;  // installed after the pragmas: only data statements count
  return conn;
}

Status Connection::check_fault(std::string_view sql) {
  if (faults_ == nullptr) return {};
  return faults_->before_statement(sql);
}

Result<Stmt> Connection::prepare(std::string_view sql) {
  auto& slot = cache_[std::string(sql)];
  if (slot == nullptr) slot = std::make_unique<Cached>();
  if (slot->stmt != nullptr && !slot->in_use) {
    slot->in_use = true;
    return Stmt(this, slot->stmt, &slot->in_use, false);
  }
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return std::unexpected(sqlite_error(db_, rc, "prepare"));
  if (slot->stmt == nullptr) {
    slot->stmt = stmt;
    slot->in_use = true;
    return Stmt(this, stmt, &slot->in_use, false);
  }
  return Stmt(this, stmt, nullptr, true);  // the cached one is busy (nested use)
}

Status Connection::exec(std::string_view sql) {
  if (auto s = check_fault(sql); !s) return s;
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    Error e = sqlite_error(db_, rc, "exec");
    if (err != nullptr) e.message += std::string(" ") + err;
    sqlite3_free(err);
    return std::unexpected(e);
  }
  return {};
}

std::int64_t Connection::changes() const { return sqlite3_changes64(db_); }

void Connection::rollback() {
  if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

}  // namespace hookd::store::sqlite
