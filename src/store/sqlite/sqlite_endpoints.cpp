// Endpoints on SQLite: CRUD, secret rotation, enable/disable as a transition (each change
// audited in its own transaction when the caller passes an entry).
#include <fmt/format.h>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

Result<Endpoint> load_endpoint(Connection& c, const std::string& app_id,
                               const std::string& id_or_uid) {
  HOOKD_TRY(q, c.prepare(fmt::format(
                   "SELECT {} FROM endpoints WHERE app_id = ?1 AND (id = ?2 OR uid = ?2) "
                   "ORDER BY id = ?2 DESC LIMIT 1",
                   kEndpointColumns)));
  q.bind_all(app_id, id_or_uid);
  return single<Endpoint>(q, read_endpoint, "endpoint");
}

Status require_application(Connection& c, const std::string& app_id) {
  HOOKD_TRY(q, c.prepare("SELECT 1 FROM applications WHERE id = ?"));
  HOOKD_TRY(found, q.bind_all(app_id).step());
  if (!found) return fail(ErrorCode::kNotFound, "application not found");
  return {};
}

}  // namespace

Result<Endpoint> SqliteStore::create_endpoint(Endpoint ep, std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<Endpoint> {
    HOOKD_CHECK(require_application(c, ep.app_id));
    ep.id = ids_.next(id_prefix::kEndpoint);
    ep.created_at = ep.updated_at = clock_.now_ms();
    ep.revision = 1;
    HOOKD_TRY(ins, c.prepare(fmt::format("INSERT INTO endpoints ({}) VALUES "
                                         "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                                         kEndpointColumns)));
    HOOKD_CHECK(
        ins.bind_all(ep.id, ep.app_id, ep.uid, ep.url, ep.description, encode_list(ep.filter_types),
                     encode_list(ep.channels), ep.secrets.current, ep.secrets.previous,
                     ep.secrets.previous_expires_at, ep.rate_limit, ep.disabled, ep.disabled_reason,
                     ep.fifo, encode_headers(ep.headers), ep.retry_policy, ep.connect_timeout_ms,
                     ep.total_timeout_ms, ep.metadata, ep.created_at, ep.updated_at, ep.revision,
                     ep.header_naming)
            .run());
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, completed_audit(*audit, ep.id), ep.created_at));
    return ep;
  });
}

Result<Endpoint> SqliteStore::get_endpoint(const std::string& app_id,
                                           const std::string& id_or_uid) {
  return read([&](Connection& c) { return load_endpoint(c, app_id, id_or_uid); });
}

Result<Page<Endpoint>> SqliteStore::list_endpoints(const std::string& app_id,
                                                   const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<Endpoint>> {
    Query q(fmt::format("SELECT {} FROM endpoints", kEndpointColumns));
    q.where("app_id = ?", {app_id}).page(page);
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<Endpoint>(stmt, read_endpoint));
    return make_page(std::move(rows), page, [](const Endpoint& e) { return e.id; });
  });
}

Result<Endpoint> SqliteStore::update_endpoint(const Endpoint& ep, std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<Endpoint> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(up,
              c.prepare("UPDATE endpoints SET uid = ?, url = ?, description = ?, filter_types = ?, "
                        "channels = ?, secret = ?, previous_secret = ?, previous_expires_at = ?, "
                        "rate_limit = ?, disabled = ?, disabled_reason = ?, fifo = ?, headers = ?, "
                        "retry_policy = ?, connect_timeout_ms = ?, total_timeout_ms = ?, "
                        "metadata = ?, header_naming = ?, updated_at = ?, revision = revision + 1 "
                        "WHERE id = ? AND app_id = ?"));
    HOOKD_CHECK(up.bind_all(ep.uid, ep.url, ep.description, encode_list(ep.filter_types),
                            encode_list(ep.channels), ep.secrets.current, ep.secrets.previous,
                            ep.secrets.previous_expires_at, ep.rate_limit, ep.disabled,
                            ep.disabled_reason, ep.fifo, encode_headers(ep.headers),
                            ep.retry_policy, ep.connect_timeout_ms, ep.total_timeout_ms,
                            ep.metadata, ep.header_naming, now, ep.id, ep.app_id)
                    .run());
    if (c.changes() == 0) return fail(ErrorCode::kNotFound, "endpoint not found");
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, now));
    return load_endpoint(c, ep.app_id, ep.id);
  });
}

Status SqliteStore::delete_endpoint(const std::string& app_id, const std::string& id,
                                    std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Status {
    HOOKD_TRY(del, c.prepare("DELETE FROM endpoints WHERE id = ? AND app_id = ?"));
    HOOKD_CHECK(del.bind_all(id, app_id).run());
    if (c.changes() == 0) return fail(ErrorCode::kNotFound, "endpoint not found");
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, clock_.now_ms()));
    return {};
  });
}

Result<Endpoint> SqliteStore::rotate_endpoint_secret(const std::string& app_id,
                                                     const std::string& id,
                                                     const std::string& new_secret,
                                                     Millis previous_valid_ms,
                                                     std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<Endpoint> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(up,
              c.prepare("UPDATE endpoints SET previous_secret = secret, previous_expires_at = ?, "
                        "secret = ?, updated_at = ?, revision = revision + 1 "
                        "WHERE id = ? AND app_id = ?"));
    HOOKD_CHECK(up.bind_all(now + previous_valid_ms, new_secret, now, id, app_id).run());
    if (c.changes() == 0) return fail(ErrorCode::kNotFound, "endpoint not found");
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, now));
    return load_endpoint(c, app_id, id);
  });
}

// A transition: the write lock (BEGIN IMMEDIATE) is held from the read on, and the UPDATE is
// conditional too, so of concurrent disables exactly one changes the row and is audited.
Result<EndpointTransition> SqliteStore::set_endpoint_disabled(const std::string& app_id,
                                                              const std::string& id, bool disabled,
                                                              std::optional<std::string> reason,
                                                              std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<EndpointTransition> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(before, load_endpoint(c, app_id, id));
    if (before.id != id) return fail(ErrorCode::kNotFound, "endpoint not found");
    if (before.disabled == disabled) return EndpointTransition{std::move(before), false};
    HOOKD_TRY(up,
              c.prepare("UPDATE endpoints SET disabled = ?, disabled_reason = ?, updated_at = ?, "
                        "revision = revision + 1 WHERE id = ? AND app_id = ? AND disabled <> ?"));
    HOOKD_CHECK(
        up.bind_all(disabled, disabled ? reason : std::nullopt, now, id, app_id, disabled).run());
    if (c.changes() == 0) return EndpointTransition{std::move(before), false};
    HOOKD_TRY(after, load_endpoint(c, app_id, id));
    if (audit) {
      HOOKD_CHECK(append_audit_in_tx(c, endpoint_disabled_audit(*audit, before, after), now));
    }
    return EndpointTransition{std::move(after), true};
  });
}

}  // namespace hookd::store::sqlite
