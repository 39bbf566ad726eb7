// Endpoints on PostgreSQL: CRUD, secret rotation, enable/disable as a transition (each change
// audited in its own transaction when the caller passes an entry).
#include <fmt/format.h>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/postgres/pg_query.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"

namespace hookd::store::postgres {
namespace {

Result<Endpoint> load_endpoint(PgConnection& c, const std::string& app_id,
                               const std::string& id_or_uid) {
  HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM endpoints WHERE app_id = $1 AND "
                                      "(id = $2 OR uid = $2) ORDER BY id = $2 DESC LIMIT 1",
                                      kEndpointColumns),
                          Params().add_all(app_id, id_or_uid)));
  return single<Endpoint>(rows, read_endpoint, "endpoint");
}

Status require_application(PgConnection& c, const std::string& app_id) {
  HOOKD_TRY(rows, c.query("SELECT 1 FROM applications WHERE id = $1", Params().add(app_id)));
  if (rows.size() == 0) return fail(ErrorCode::kNotFound, "application not found");
  return {};
}

Status changed_one(const Rows& rows) {
  if (rows.affected() == 0) return fail(ErrorCode::kNotFound, "endpoint not found");
  return {};
}

}  // namespace

Result<Endpoint> PgStore::create_endpoint(Endpoint ep, std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<Endpoint> {
    HOOKD_CHECK(require_application(c, ep.app_id));
    ep.id = ids_.next(id_prefix::kEndpoint);
    ep.created_at = ep.updated_at = clock_.now_ms();
    ep.revision = 1;
    HOOKD_CHECK(c.query(
        fmt::format("INSERT INTO endpoints ({}) VALUES ({})", kEndpointColumns, placeholders(23)),
        Params().add_all(ep.id, ep.app_id, ep.uid, ep.url, ep.description,
                         encode_list(ep.filter_types), encode_list(ep.channels), ep.secrets.current,
                         ep.secrets.previous, ep.secrets.previous_expires_at, ep.rate_limit,
                         ep.disabled, ep.disabled_reason, ep.fifo, encode_headers(ep.headers),
                         ep.retry_policy, ep.connect_timeout_ms, ep.total_timeout_ms, ep.metadata,
                         ep.created_at, ep.updated_at, ep.revision, ep.header_naming)));
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, completed_audit(*audit, ep.id), ep.created_at));
    return ep;
  });
}

Result<Endpoint> PgStore::get_endpoint(const std::string& app_id, const std::string& id_or_uid) {
  return read([&](PgConnection& c) { return load_endpoint(c, app_id, id_or_uid); });
}

Result<Page<Endpoint>> PgStore::list_endpoints(const std::string& app_id, const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<Endpoint>> {
    PgQuery q(fmt::format("SELECT {} FROM endpoints", kEndpointColumns));
    q.where("app_id = ?", {app_id}).page(page);
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<Endpoint>(rows, read_endpoint), page,
                     [](const Endpoint& e) { return e.id; });
  });
}

Result<Endpoint> PgStore::update_endpoint(const Endpoint& ep, std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<Endpoint> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(rows, c.query("UPDATE endpoints SET uid = $1, url = $2, description = $3, "
                            "filter_types = $4, channels = $5, secret = $6, previous_secret = $7, "
                            "previous_expires_at = $8, rate_limit = $9, disabled = $10, "
                            "disabled_reason = $11, fifo = $12, headers = $13, retry_policy = $14, "
                            "connect_timeout_ms = $15, total_timeout_ms = $16, metadata = $17, "
                            "header_naming = $18, updated_at = $19, revision = revision + 1 "
                            "WHERE id = $20 AND app_id = $21",
                            Params().add_all(
                                ep.uid, ep.url, ep.description, encode_list(ep.filter_types),
                                encode_list(ep.channels), ep.secrets.current, ep.secrets.previous,
                                ep.secrets.previous_expires_at, ep.rate_limit, ep.disabled,
                                ep.disabled_reason, ep.fifo, encode_headers(ep.headers),
                                ep.retry_policy, ep.connect_timeout_ms, ep.total_timeout_ms,
                                ep.metadata, ep.header_naming, now, ep.id, ep.app_id)));
    HOOKD_CHECK(changed_one(rows));
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, now));
    return load_endpoint(c, ep.app_id, ep.id);
  });
}

Status PgStore::delete_endpoint(const std::string& app_id, const std::string& id,
                                std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Status {
    HOOKD_TRY(rows, c.query("DELETE FROM endpoints WHERE id = $1 AND app_id = $2",
                            Params().add_all(id, app_id)));
    HOOKD_CHECK(changed_one(rows));
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, clock_.now_ms()));
    return {};
  });
}

Result<Endpoint> PgStore::rotate_endpoint_secret(const std::string& app_id, const std::string& id,
                                                 const std::string& new_secret,
                                                 Millis previous_valid_ms,
                                                 std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<Endpoint> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(rows,
              c.query("UPDATE endpoints SET previous_secret = secret, "
                      "previous_expires_at = $1, secret = $2, updated_at = $3, "
                      "revision = revision + 1 WHERE id = $4 AND app_id = $5",
                      Params().add_all(now + previous_valid_ms, new_secret, now, id, app_id)));
    HOOKD_CHECK(changed_one(rows));
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, *audit, now));
    return load_endpoint(c, app_id, id);
  });
}

// A transition: the row is locked (FOR UPDATE) before its state is read, and the UPDATE is
// conditional too (a concurrent disable that waited on the lock re-reads the committed row
// and finds nothing to change), so of concurrent disables exactly one is audited.
Result<EndpointTransition> PgStore::set_endpoint_disabled(const std::string& app_id,
                                                          const std::string& id, bool disabled,
                                                          std::optional<std::string> reason,
                                                          std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<EndpointTransition> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(locked, c.query(fmt::format("SELECT {} FROM endpoints WHERE id = $1 AND "
                                          "app_id = $2 FOR UPDATE",
                                          kEndpointColumns),
                              Params().add_all(id, app_id)));
    HOOKD_TRY(before, single<Endpoint>(locked, read_endpoint, "endpoint"));
    if (before.disabled == disabled) return EndpointTransition{std::move(before), false};
    HOOKD_TRY(rows, c.query("UPDATE endpoints SET disabled = $1, disabled_reason = $2, "
                            "updated_at = $3, revision = revision + 1 "
                            "WHERE id = $4 AND app_id = $5 AND disabled <> $1",
                            Params().add_all(disabled, disabled ? reason : std::nullopt, now, id,
                                             app_id)));
    if (rows.affected() == 0) return EndpointTransition{std::move(before), false};
    HOOKD_TRY(after, load_endpoint(c, app_id, id));
    if (audit) {
      HOOKD_CHECK(append_audit_in_tx(c, endpoint_disabled_audit(*audit, before, after), now));
    }
    return EndpointTransition{std::move(after), true};
  });
}

}  // namespace hookd::store::postgres
