// The AttemptedStore on SQLite: the attempted-messages and attempted-destinations lists (the
// shared SELECTs of store/attempted_sql.hpp) and expunging a message's payload or an
// attempt's response body, each audited in its own transaction.
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/attempted_sql.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {

Result<Page<EndpointMessage>> SqliteStore::list_endpoint_messages(
    const std::string& endpoint_id, const EndpointMessageFilter& filter, const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<EndpointMessage>> {
    Query q(endpoint_message_select());
    filter_endpoint_messages(q, endpoint_id, filter, kJsonMembership);
    q.page(page, "messages.id");
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<EndpointMessage>(stmt, read_endpoint_message));
    return make_page(std::move(rows), page, [](const EndpointMessage& m) { return m.message.id; });
  });
}

Result<Page<MessageDestination>> SqliteStore::list_message_destinations(const std::string& msg_id,
                                                                        const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<MessageDestination>> {
    Query q(destination_select());
    filter_message_destinations(q, msg_id);
    q.page(page, "endpoints.id");
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<MessageDestination>(stmt, read_destination));
    return make_page(std::move(rows), page,
                     [](const MessageDestination& d) { return d.endpoint.id; });
  });
}

Result<ExpungeOutcome> SqliteStore::expunge_message_content(const std::string& app_id,
                                                            const std::string& id_or_event_id,
                                                            std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<ExpungeOutcome> {
    HOOKD_TRY(find, c.prepare("SELECT id FROM messages WHERE app_id = ?1 AND (id = ?2 OR "
                              "event_id = ?2) ORDER BY id = ?2 DESC LIMIT 1"));
    find.bind_all(app_id, id_or_event_id);
    HOOKD_TRY(msg_id, single<std::string>(
                          find, [](const Stmt& s) { return s.text(0); }, "message"));
    HOOKD_CHECK(find.run());
    const Millis now = clock_.now_ms();
    HOOKD_TRY(empty, c.prepare("UPDATE messages SET payload = x'' WHERE id = ?"));
    HOOKD_CHECK(empty.bind_all(msg_id).run());
    HOOKD_TRY(discard, c.prepare("UPDATE deliveries SET status = 'discarded', lease_owner = NULL, "
                                 "lease_until = NULL, updated_at = ?1 WHERE msg_id = ?2 "
                                 "AND status IN ('pending', 'delivering', 'dead')"));
    HOOKD_CHECK(discard.bind_all(now, msg_id).run());
    ExpungeOutcome out{msg_id, static_cast<int>(c.changes())};
    if (audit) {
      HOOKD_CHECK(append_audit_in_tx(
          c, completed_audit(*audit, msg_id, expunge_state_json(out.discarded)), now));
    }
    return out;
  });
}

Status SqliteStore::expunge_attempt_content(const std::string& msg_id,
                                            const std::string& attempt_id,
                                            std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Status {
    HOOKD_TRY(find, c.prepare(fmt::format("SELECT {} FROM attempts WHERE id = ? AND msg_id = ?",
                                          kAttemptColumns)));
    find.bind_all(attempt_id, msg_id);
    HOOKD_TRY(before, single<Attempt>(find, read_attempt, "attempt"));
    HOOKD_CHECK(find.run());
    const Attempt after = expunged_attempt(before);
    HOOKD_TRY(up, c.prepare("UPDATE attempts SET response_body = ?, response_headers = ? "
                            "WHERE id = ?"));
    up.bind_blob(1, after.response_body).bind(2, encode_headers(after.response_headers));
    HOOKD_CHECK(up.bind(3, attempt_id).run());
    HOOKD_TRY(last, c.prepare("SELECT last_error FROM deliveries WHERE id = ?"));
    last.bind_all(before.delivery_id);
    HOOKD_TRY(found, last.step());
    if (found) {
      const auto current = last.opt_text(0);
      HOOKD_CHECK(last.run());
      if (auto next = last_error_after_expunge(before, current); next != current) {
        HOOKD_TRY(fix, c.prepare("UPDATE deliveries SET last_error = ? WHERE id = ?"));
        HOOKD_CHECK(fix.bind_all(next, before.delivery_id).run());
      }
    }
    if (audit) {
      audit->before = attempt_body_state_json(before.response_body.size());
      audit->after = attempt_body_state_json(after.response_body.size());
      HOOKD_CHECK(append_audit_in_tx(c, completed_audit(*audit, attempt_id), clock_.now_ms()));
    }
    return {};
  });
}

}  // namespace hookd::store::sqlite
