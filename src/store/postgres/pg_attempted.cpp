// The AttemptedStore on PostgreSQL: the attempted-messages and attempted-destinations lists
// (the shared SELECTs of store/attempted_sql.hpp) and expunging a message's payload or an
// attempt's response body, each audited in its own transaction; the rows changed are locked
// first (FOR UPDATE), so an expunge and a concurrent resend or replay do not interleave.
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/attempted_sql.hpp"
#include "store/postgres/pg_query.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"

namespace hookd::store::postgres {

Result<Page<EndpointMessage>> PgStore::list_endpoint_messages(const std::string& endpoint_id,
                                                              const EndpointMessageFilter& filter,
                                                              const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<EndpointMessage>> {
    PgQuery q(endpoint_message_select());
    filter_endpoint_messages(q, endpoint_id, filter, kJsonMembership);
    q.page(page, "messages.id");
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<EndpointMessage>(rows, read_endpoint_message), page,
                     [](const EndpointMessage& m) { return m.message.id; });
  });
}

Result<Page<MessageDestination>> PgStore::list_message_destinations(const std::string& msg_id,
                                                                    const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<MessageDestination>> {
    PgQuery q(destination_select());
    filter_message_destinations(q, msg_id);
    q.page(page, "endpoints.id");
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<MessageDestination>(rows, read_destination), page,
                     [](const MessageDestination& d) { return d.endpoint.id; });
  });
}

Result<ExpungeOutcome> PgStore::expunge_message_content(const std::string& app_id,
                                                        const std::string& id_or_event_id,
                                                        std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<ExpungeOutcome> {
    HOOKD_TRY(found, c.query("SELECT id FROM messages WHERE app_id = $1 AND (id = $2 OR "
                             "event_id = $2) ORDER BY id = $2 DESC LIMIT 1 FOR UPDATE",
                             Params().add_all(app_id, id_or_event_id)));
    HOOKD_TRY(msg_id, single<std::string>(
                          found, [](const Row& r) { return r.text(0); }, "message"));
    const Millis now = clock_.now_ms();
    HOOKD_CHECK(
        c.query("UPDATE messages SET payload = ''::bytea WHERE id = $1", Params().add(msg_id)));
    HOOKD_TRY(discarded, c.query("UPDATE deliveries SET status = 'discarded', lease_owner = NULL, "
                                 "lease_until = NULL, updated_at = $1 WHERE msg_id = $2 "
                                 "AND status IN ('pending', 'delivering', 'dead')",
                                 Params().add_all(now, msg_id)));
    ExpungeOutcome out{msg_id, static_cast<int>(discarded.affected())};
    if (audit) {
      HOOKD_CHECK(append_audit_in_tx(
          c, completed_audit(*audit, msg_id, expunge_state_json(out.discarded)), now));
    }
    return out;
  });
}

Status PgStore::expunge_attempt_content(const std::string& msg_id, const std::string& attempt_id,
                                        std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Status {
    HOOKD_TRY(found, c.query(fmt::format("SELECT {} FROM attempts WHERE id = $1 AND msg_id = $2 "
                                         "FOR UPDATE",
                                         kAttemptColumns),
                             Params().add_all(attempt_id, msg_id)));
    HOOKD_TRY(before, single<Attempt>(found, read_attempt, "attempt"));
    const Attempt after = expunged_attempt(before);
    Params set;
    set.add_bytes(after.response_body).add_all(encode_headers(after.response_headers), attempt_id);
    HOOKD_CHECK(c.query(
        "UPDATE attempts SET response_body = $1, response_headers = $2 WHERE id = $3", set));
    HOOKD_TRY(last, c.query("SELECT last_error FROM deliveries WHERE id = $1 FOR UPDATE",
                            Params().add(before.delivery_id)));
    if (last.size() > 0) {
      const auto current = last.opt_text(0, 0);
      if (auto next = last_error_after_expunge(before, current); next != current) {
        HOOKD_CHECK(c.query("UPDATE deliveries SET last_error = $1 WHERE id = $2",
                            Params().add_all(next, before.delivery_id)));
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

}  // namespace hookd::store::postgres
