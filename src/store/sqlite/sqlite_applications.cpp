// Applications and event types on SQLite (each change audited in its own transaction when
// the caller passes an entry).
#include <fmt/format.h>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

Result<Application> load_application(Connection& c, const std::string& id_or_uid) {
  HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM applications WHERE id = ?1 OR uid = ?1 "
                                     "ORDER BY id = ?1 DESC LIMIT 1",
                                     kAppColumns)));
  q.bind(1, id_or_uid);
  return single<Application>(q, read_application, "application");
}

Result<EventType> load_event_type(Connection& c, const std::string& name) {
  HOOKD_TRY(q,
            c.prepare(fmt::format("SELECT {} FROM event_types WHERE name = ?", kEventTypeColumns)));
  q.bind(1, name);
  return single<EventType>(q, read_event_type, "event type");
}

}  // namespace

Result<Application> SqliteStore::create_application(Application app,
                                                    std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<Application> {
    const Millis now = clock_.now_ms();
    app.id = ids_.next(id_prefix::kApplication);
    app.created_at = app.updated_at = now;
    HOOKD_TRY(ins, c.prepare(fmt::format("INSERT INTO applications ({}) VALUES (?,?,?,?,?,?,?)",
                                         kAppColumns)));
    HOOKD_CHECK(ins.bind_all(app.id, app.uid, app.name, app.rate_limit, app.metadata,
                             app.created_at, app.updated_at)
                    .run());
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, completed_audit(*audit, app.id), now));
    return app;
  });
}

Result<Application> SqliteStore::get_application(const std::string& id_or_uid) {
  return read([&](Connection& c) { return load_application(c, id_or_uid); });
}

Result<Page<Application>> SqliteStore::list_applications(const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<Application>> {
    Query q(fmt::format("SELECT {} FROM applications", kAppColumns));
    q.page(page);
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<Application>(stmt, read_application));
    return make_page(std::move(rows), page, [](const Application& a) { return a.id; });
  });
}

Result<Application> SqliteStore::update_application(const Application& app,
                                                    std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<Application> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(up,
              c.prepare("UPDATE applications SET uid = ?, name = ?, rate_limit = ?, metadata = ?, "
                        "updated_at = ? WHERE id = ?"));
    HOOKD_CHECK(up.bind_all(app.uid, app.name, app.rate_limit, app.metadata, now, app.id).run());
    if (c.changes() == 0) return fail(ErrorCode::kNotFound, "application not found");
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, now));
    return load_application(c, app.id);
  });
}

Status SqliteStore::delete_application(const std::string& id, std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Status {
    HOOKD_TRY(del, c.prepare("DELETE FROM applications WHERE id = ?"));
    HOOKD_CHECK(del.bind_all(id).run());
    if (c.changes() == 0) return fail(ErrorCode::kNotFound, "application not found");
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, clock_.now_ms()));
    return {};
  });
}

Result<EventType> SqliteStore::create_event_type(EventType type, std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<EventType> {
    type.created_at = type.updated_at = clock_.now_ms();
    HOOKD_TRY(ins, c.prepare(fmt::format("INSERT INTO event_types ({}) VALUES (?,?,?,?,?,?)",
                                         kEventTypeColumns)));
    HOOKD_CHECK(ins.bind_all(type.name, type.description, type.archived, type.schemas,
                             type.created_at, type.updated_at)
                    .run());
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, type.created_at));
    return type;
  });
}

Result<EventType> SqliteStore::get_event_type(const std::string& name) {
  return read([&](Connection& c) { return load_event_type(c, name); });
}

Result<Page<EventType>> SqliteStore::list_event_types(const PageRequest& page,
                                                      bool include_archived) {
  return read([&](Connection& c) -> Result<Page<EventType>> {
    Query q(fmt::format("SELECT {} FROM event_types", kEventTypeColumns));
    if (!include_archived) q.where("archived = 0");
    q.page(page, "name");
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<EventType>(stmt, read_event_type));
    return make_page(std::move(rows), page, [](const EventType& t) { return t.name; });
  });
}

Result<EventType> SqliteStore::update_event_type(const EventType& type,
                                                 std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<EventType> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(up, c.prepare("UPDATE event_types SET description = ?, archived = ?, schemas = ?, "
                            "updated_at = ? WHERE name = ?"));
    HOOKD_CHECK(up.bind_all(type.description, type.archived, type.schemas, now, type.name).run());
    if (c.changes() == 0) return fail(ErrorCode::kNotFound, "event type not found");
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, now));
    return load_event_type(c, type.name);
  });
}

Status SqliteStore::delete_event_type(const std::string& name, std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Status {
    HOOKD_TRY(del, c.prepare("DELETE FROM event_types WHERE name = ?"));
    HOOKD_CHECK(del.bind_all(name).run());
    if (c.changes() == 0) return fail(ErrorCode::kNotFound, "event type not found");
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, clock_.now_ms()));
    return {};
  });
}

}  // namespace hookd::store::sqlite
