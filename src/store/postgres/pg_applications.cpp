// Applications and event types on PostgreSQL.
#include <fmt/format.h>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/postgres/pg_query.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"

namespace hookd::store::postgres {
namespace {

Result<Application> load_application(PgConnection& c, const std::string& id_or_uid) {
  HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM applications WHERE id = $1 OR uid = $1 "
                                      "ORDER BY id = $1 DESC LIMIT 1",
                                      kAppColumns),
                          Params().add(id_or_uid)));
  return single<Application>(rows, read_application, "application");
}

Result<EventType> load_event_type(PgConnection& c, const std::string& name) {
  HOOKD_TRY(rows,
            c.query(fmt::format("SELECT {} FROM event_types WHERE name = $1", kEventTypeColumns),
                    Params().add(name)));
  return single<EventType>(rows, read_event_type, "event type");
}

Status changed_one(const Rows& rows, std::string_view what) {
  if (rows.affected() == 0) return fail(ErrorCode::kNotFound, std::string(what) + " not found");
  return {};
}

}  // namespace

Result<Application> PgStore::create_application(Application app, std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<Application> {
    const Millis now = clock_.now_ms();
    app.id = ids_.next(id_prefix::kApplication);
    app.created_at = app.updated_at = now;
    HOOKD_CHECK(c.query(
        fmt::format("INSERT INTO applications ({}) VALUES ({})", kAppColumns, placeholders(7)),
        Params().add_all(app.id, app.uid, app.name, app.rate_limit, app.metadata, app.created_at,
                         app.updated_at)));
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, completed_audit(*audit, app.id), now));
    return app;
  });
}

Result<Application> PgStore::get_application(const std::string& id_or_uid) {
  return read([&](PgConnection& c) { return load_application(c, id_or_uid); });
}

Result<Page<Application>> PgStore::list_applications(const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<Application>> {
    PgQuery q(fmt::format("SELECT {} FROM applications", kAppColumns));
    q.page(page);
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<Application>(rows, read_application), page,
                     [](const Application& a) { return a.id; });
  });
}

Result<Application> PgStore::update_application(const Application& app,
                                                std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<Application> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(rows, c.query("UPDATE applications SET uid = $1, name = $2, rate_limit = $3, "
                            "metadata = $4, updated_at = $5 WHERE id = $6",
                            Params().add_all(app.uid, app.name, app.rate_limit, app.metadata, now,
                                             app.id)));
    HOOKD_CHECK(changed_one(rows, "application"));
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, now));
    return load_application(c, app.id);
  });
}

Status PgStore::delete_application(const std::string& id, std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Status {
    HOOKD_TRY(rows, c.query("DELETE FROM applications WHERE id = $1", Params().add(id)));
    HOOKD_CHECK(changed_one(rows, "application"));
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, clock_.now_ms()));
    return {};
  });
}

Result<EventType> PgStore::create_event_type(EventType type, std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<EventType> {
    type.created_at = type.updated_at = clock_.now_ms();
    HOOKD_CHECK(c.query(
        fmt::format("INSERT INTO event_types ({}) VALUES ({})", kEventTypeColumns, placeholders(6)),
        Params().add_all(type.name, type.description, type.archived, type.schemas, type.created_at,
                         type.updated_at)));
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, type.created_at));
    return type;
  });
}

Result<EventType> PgStore::get_event_type(const std::string& name) {
  return read([&](PgConnection& c) { return load_event_type(c, name); });
}

Result<Page<EventType>> PgStore::list_event_types(const PageRequest& page, bool include_archived) {
  return read([&](PgConnection& c) -> Result<Page<EventType>> {
    PgQuery q(fmt::format("SELECT {} FROM event_types", kEventTypeColumns));
    if (!include_archived) q.where("NOT archived");
    q.page(page, "name");
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<EventType>(rows, read_event_type), page,
                     [](const EventType& t) { return t.name; });
  });
}

Result<EventType> PgStore::update_event_type(const EventType& type,
                                             std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<EventType> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(rows, c.query("UPDATE event_types SET description = $1, archived = $2, "
                            "schemas = $3, updated_at = $4 WHERE name = $5",
                            Params().add_all(type.description, type.archived, type.schemas, now,
                                             type.name)));
    HOOKD_CHECK(changed_one(rows, "event type"));
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, now));
    return load_event_type(c, type.name);
  });
}

Status PgStore::delete_event_type(const std::string& name, std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Status {
    HOOKD_TRY(rows, c.query("DELETE FROM event_types WHERE name = $1", Params().add(name)));
    HOOKD_CHECK(changed_one(rows, "event type"));
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, clock_.now_ms()));
    return {};
  });
}

}  // namespace hookd::store::postgres
