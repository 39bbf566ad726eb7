#include "store/postgres/pg_store.hpp"

#include <fmt/format.h>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/postgres/pg_migrations.hpp"
#include "store/postgres/pg_query.hpp"
#include "store/postgres/pg_rows.hpp"

namespace hookd::store::postgres {

Result<std::unique_ptr<PgStore>> PgStore::open(const PgOptions& options, Clock& clock,
                                               IdGenerator& ids) {
  std::unique_ptr<PgStore> store(new PgStore(options, clock, ids));
  auto first = store->pool_.acquire();  // checks the URL and that the server answers
  if (!first) return std::unexpected(first.error());
  return store;
}

PgStore::PgStore(const PgOptions& options, Clock& clock, IdGenerator& ids)
    : clock_(clock),
      ids_(ids),
      round_trips_(std::make_shared<std::atomic<std::int64_t>>(0)),
      pool_(ConnectionOptions{options.url, options.schema, options.connect_timeout_s,
                              options.application_name, round_trips_},
            options.pool_size),
      schema_(options.schema) {}

PgStore::~PgStore() = default;

Status PgStore::migrate() {
  auto lease = pool_.acquire();
  if (!lease) return std::unexpected(lease.error());
  return apply_pg_migrations(lease->conn(), schema_, clock_.now_ms());
}

Result<int> PgStore::schema_version() {
  return read([&](PgConnection& c) { return current_pg_schema_version(c); });
}

// As on SQLite, a row inserted and deleted in one transaction: WAL is written and flushed on
// commit, so this fails exactly when a commit cannot be made (disk full, read-only, gone).
// Other transactions never see the row; two nodes probing at once queue on its key.
Status PgStore::probe_commit() {
  return write([](PgConnection& c) {
    return c.exec(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (-1, 'probe', 0);"
        "DELETE FROM schema_migrations WHERE version = -1");
  });
}

// ---- audit log ----

Result<AuditEntry> PgStore::append_audit_in_tx(PgConnection& c, AuditEntry entry, Millis now) {
  entry.id = ids_.next(id_prefix::kAudit);
  entry.at = now;
  HOOKD_CHECK(
      c.query(fmt::format("INSERT INTO audit_log ({}) VALUES ({})", kAuditColumns, placeholders(9)),
              Params().add_all(entry.id, entry.at, entry.actor, entry.action, entry.target_type,
                               entry.target_id, entry.reason, entry.before, entry.after)));
  return entry;
}

Result<AuditEntry> PgStore::append_audit(AuditEntry entry) {
  return write([&](PgConnection& c) { return append_audit_in_tx(c, entry, clock_.now_ms()); });
}

Result<Page<AuditEntry>> PgStore::list_audit(const AuditFilter& filter, const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<AuditEntry>> {
    PgQuery q(fmt::format("SELECT {} FROM audit_log", kAuditColumns));
    filter_audit(q, filter);
    q.page(page);
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<AuditEntry>(rows, read_audit), page,
                     [](const AuditEntry& a) { return a.id; });
  });
}

}  // namespace hookd::store::postgres
