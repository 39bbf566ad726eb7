#include "store/sqlite/sqlite_store.hpp"
#include "hookd/ids.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/sqlite/migrations.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"

namespace hookd::store::sqlite {

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(const SqliteOptions& options, Clock& clock,
                                                       IdGenerator& ids) {
  ConnectionOptions conn_opts{.synchronous = options.synchronous,
                              .busy_timeout_ms = options.busy_timeout_ms,
                              .query_only = false,
                              .faults = options.faults};
  const bool in_memory = options.path == ":memory:" || options.path.empty();
  const bool background_checkpoints = !in_memory && options.checkpoint_interval.count() > 0;
  if (background_checkpoints) conn_opts.wal_autocheckpoint = 0;
  HOOKD_TRY(writer, Connection::open(options.path, conn_opts));
  conn_opts.wal_autocheckpoint = -1;
  std::vector<std::unique_ptr<Connection>> readers;
  conn_opts.query_only = true;
  for (int i = 0; !in_memory && i < options.readers; ++i) {
    HOOKD_TRY(reader, Connection::open(options.path, conn_opts));
    readers.push_back(std::move(reader));
  }
  std::unique_ptr<Checkpointer> checkpointer;
  if (background_checkpoints) {
    conn_opts.query_only = false;
    conn_opts.faults = nullptr;
    HOOKD_TRY(own, Connection::open(options.path, conn_opts));
    checkpointer = std::make_unique<Checkpointer>(std::move(own), options.checkpoint_interval);
  }
  auto store = std::unique_ptr<SqliteStore>(
      new SqliteStore(clock, ids, std::move(writer), std::move(readers)));
  store->checkpointer_ = std::move(checkpointer);
  std::string mode = options.synchronous;
  std::ranges::transform(mode, mode.begin(), [](unsigned char c) { return std::toupper(c); });
  if (!in_memory && (mode == "FULL" || mode == "EXTRA" || mode == "2" || mode == "3")) {
    store->restore_synchronous_ = "PRAGMA synchronous=" + mode;
  }
  return store;
}

SqliteStore::SqliteStore(Clock& clock, IdGenerator& ids, std::unique_ptr<Connection> writer,
                         std::vector<std::unique_ptr<Connection>> readers)
    : clock_(clock), ids_(ids), writer_(std::move(writer)), readers_(std::move(readers)) {
  for (auto& r : readers_) idle_readers_.push_back(r.get());
}

SqliteStore::~SqliteStore() = default;

Connection* SqliteStore::acquire_reader() {
  std::unique_lock lock(readers_mu_);
  readers_cv_.wait(lock, [&] { return !idle_readers_.empty(); });
  Connection* conn = idle_readers_.back();
  idle_readers_.pop_back();
  return conn;
}

void SqliteStore::release_reader(Connection* conn) {
  {
    std::lock_guard lock(readers_mu_);
    idle_readers_.push_back(conn);
  }
  readers_cv_.notify_one();
}

Status SqliteStore::migrate() {
  std::lock_guard lock(writer_mu_);
  return apply_migrations(*writer_, clock_.now_ms());
}

Result<int> SqliteStore::schema_version() {
  std::lock_guard lock(writer_mu_);
  return current_schema_version(*writer_);
}

// A row inserted and deleted in one transaction: its page is dirty, so it goes to the WAL and
// is fsynced on commit — this fails exactly when a commit cannot be written. (An UPDATE that
// sets a value to itself would not do: SQLite leaves an unchanged cell's page clean and the
// commit writes nothing, so it succeeds on a full disk.)
Status SqliteStore::probe_commit() {
  return write([](Connection& c) {
    return c.exec(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (-1, 'probe', 0);"
        "DELETE FROM schema_migrations WHERE version = -1");
  });
}

// ---- audit log ----

Result<AuditEntry> SqliteStore::append_audit_in_tx(Connection& c, AuditEntry entry, Millis now) {
  entry.id = ids_.next(id_prefix::kAudit);
  entry.at = now;
  HOOKD_TRY(ins, c.prepare(fmt::format("INSERT INTO audit_log ({}) VALUES (?,?,?,?,?,?,?,?,?)",
                                       kAuditColumns)));
  HOOKD_CHECK(ins.bind_all(entry.id, entry.at, entry.actor, entry.action, entry.target_type,
                           entry.target_id, entry.reason, entry.before, entry.after)
                  .run());
  return entry;
}

Result<AuditEntry> SqliteStore::append_audit(AuditEntry entry) {
  return write([&](Connection& c) { return append_audit_in_tx(c, entry, clock_.now_ms()); });
}

Result<Page<AuditEntry>> SqliteStore::list_audit(const AuditFilter& filter,
                                                 const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<AuditEntry>> {
    Query q(fmt::format("SELECT {} FROM audit_log", kAuditColumns));
    filter_audit(q, filter);
    q.page(page);
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<AuditEntry>(stmt, read_audit));
    return make_page(std::move(rows), page, [](const AuditEntry& a) { return a.id; });
  });
}

}  // namespace hookd::store::sqlite
