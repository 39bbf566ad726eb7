// The inbound inbox on PostgreSQL: the dedup insert of a batch (ON CONFLICT DO NOTHING,
// one statement: pg_inbox_sql.hpp; also inside another transaction, the reconciler's) and
// the reads. The claim and the status changes are in
// pg_inbox_round.cpp.
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/postgres/pg_inbox_sql.hpp"
#include "store/postgres/pg_query.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"

namespace hookd::store::postgres {
namespace {

Result<InboxEvent> load_inbox(PgConnection& c, std::string_view where, const Params& params) {
  HOOKD_TRY(rows,
            c.query(fmt::format("SELECT {} FROM inbox WHERE {}", kInboxColumns, where), params));
  return single<InboxEvent>(rows, read_inbox, "inbox event");
}

// The outcome of row `i` of inbox_insert_batch_sql's answer. An event whose key another
// transaction committed after the statement started is a duplicate whose id the statement
// could not see: it is read now (a rare second round trip).
Result<InboxInsertOutcome> insert_outcome(PgConnection& c, const Rows& rows, int i,
                                          const InboxEvent& ev) {
  if (!rows.is_null(i, 0)) return InboxInsertOutcome{true, rows.text(i, 0)};
  if (!rows.is_null(i, 1)) return InboxInsertOutcome{false, rows.text(i, 1)};
  HOOKD_TRY(found, c.query("SELECT id FROM inbox WHERE source = $1 AND event_id = $2",
                           Params().add_all(ev.source, ev.event_id)));
  if (found.size() == 0) return fail(ErrorCode::kInternal, "inbox insert ignored");
  return InboxInsertOutcome{false, found.text(0, 0)};
}

}  // namespace

Result<InboxInsertOutcome> PgStore::inbox_insert_in_tx(PgConnection& c, InboxEvent ev, Millis now) {
  std::vector<InboxEvent> one;
  one.push_back(std::move(ev));
  HOOKD_TRY(rows, c.query(inbox_insert_batch_sql(), inbox_insert_batch_params(one, now, ids_)));
  if (rows.size() != 1) return fail(ErrorCode::kInternal, "inbox insert returned no row");
  return insert_outcome(c, rows, 0, one[0]);
}

Result<InboxInsertOutcome> PgStore::inbox_insert(InboxEvent ev) {
  std::vector<InboxEvent> one;
  one.push_back(std::move(ev));
  HOOKD_TRY(outcomes, inbox_insert_batch(std::move(one)));
  return std::move(outcomes.at(0));
}

// One statement, so its own transaction (committed durably): one round trip per batch.
Result<std::vector<InboxInsertOutcome>> PgStore::inbox_insert_batch(std::vector<InboxEvent> evs) {
  if (evs.empty()) return std::vector<InboxInsertOutcome>{};
  return alone([&](PgConnection& c) -> Result<std::vector<InboxInsertOutcome>> {
    HOOKD_TRY(rows, c.query(inbox_insert_batch_sql(),
                            inbox_insert_batch_params(evs, clock_.now_ms(), ids_)));
    if (static_cast<std::size_t>(rows.size()) != evs.size()) {
      return fail(ErrorCode::kInternal, "inbox insert returned too few rows");
    }
    std::vector<InboxInsertOutcome> out;
    out.reserve(evs.size());
    for (int i = 0; i < rows.size(); ++i) {
      HOOKD_TRY(outcome, insert_outcome(c, rows, i, evs[static_cast<std::size_t>(i)]));
      out.push_back(std::move(outcome));
    }
    return out;
  });
}

Result<InboxEvent> PgStore::inbox_get(const std::string& id) {
  return read([&](PgConnection& c) { return load_inbox(c, "id = $1", Params().add(id)); });
}

Result<InboxEvent> PgStore::inbox_find(const std::string& source, const std::string& event_id) {
  return read([&](PgConnection& c) {
    return load_inbox(c, "source = $1 AND event_id = $2", Params().add_all(source, event_id));
  });
}

Result<Page<InboxEvent>> PgStore::inbox_list(const InboxFilter& filter, const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<InboxEvent>> {
    PgQuery q(fmt::format("SELECT {} FROM inbox", kInboxColumns));
    filter_inbox(q, filter);
    q.page(page);
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<InboxEvent>(rows, read_inbox), page,
                     [](const InboxEvent& e) { return e.id; });
  });
}

Result<bool> PgStore::inbox_business_key_processed(const std::string& source,
                                                   const std::string& business_key) {
  return read([&](PgConnection& c) -> Result<bool> {
    HOOKD_TRY(rows, c.query("SELECT 1 FROM inbox WHERE source = $1 AND business_key = $2 "
                            "AND status = 'processed' LIMIT 1",
                            Params().add_all(source, business_key)));
    return rows.size() > 0;
  });
}

Result<int> PgStore::inbox_release_leases(const std::string& lease_owner) {
  return write([&](PgConnection& c) -> Result<int> {
    HOOKD_TRY(rows, c.query("UPDATE inbox SET status = CASE WHEN attempts = 0 THEN 'received' "
                            "ELSE 'retry' END, next_attempt_at = $1, lease_owner = NULL, "
                            "lease_until = NULL WHERE status = 'processing' AND lease_owner = $2",
                            Params().add_all(clock_.now_ms(), lease_owner)));
    return static_cast<int>(rows.affected());
  });
}

Result<std::vector<InboxHistoryEntry>> PgStore::inbox_history(const std::string& id) {
  return read([&](PgConnection& c) -> Result<std::vector<InboxHistoryEntry>> {
    HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM inbox_history WHERE inbox_id = $1 "
                                        "ORDER BY seq",
                                        kInboxHistoryColumns),
                            Params().add(id)));
    return collect<InboxHistoryEntry>(rows, read_inbox_history);
  });
}

Result<InboxEntity> PgStore::inbox_entity(const std::string& source,
                                          const std::string& entity_key) {
  return read([&](PgConnection& c) -> Result<InboxEntity> {
    HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM inbox_entities WHERE source = $1 AND "
                                        "entity_key = $2",
                                        kInboxEntityColumns),
                            Params().add_all(source, entity_key)));
    return single<InboxEntity>(rows, read_inbox_entity, "inbox entity");
  });
}

}  // namespace hookd::store::postgres
