// The inbound inbox on PostgreSQL: dedup insert (ON CONFLICT DO NOTHING), ordered
// per-entity claim with FOR UPDATE SKIP LOCKED and leases, status changes with history and
// entity state in one transaction.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "hookd/ids.hpp"
#include "store/inbox_round_steps.hpp"
#include "store/postgres/pg_delivery_sql.hpp"
#include "store/postgres/pg_query.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"
#include "store/postgres/pg_try.hpp"

namespace hookd::store::postgres {
namespace {

#define HOOKD_INBOX_OPEN "('received', 'processing', 'retry', 'parked')"

// Open rows are ordered per (source, entity_key) by (sequence, received_at, id); rows
// without a sequence sort after those with one. Only the first open row of an entity is
// claimable, and its lease is the entity's lease across nodes.
constexpr std::string_view kClaimSql = R"sql(
WITH due AS (
  SELECT r.id FROM inbox r
  WHERE r.status IN )sql" HOOKD_INBOX_OPEN R"sql( AND r.next_attempt_at <= $3
    AND (r.lease_until IS NULL OR r.lease_until <= $3)
    AND ($5::text IS NULL OR r.source = $5::text)
    AND (r.entity_key IS NULL OR NOT EXISTS (
      SELECT 1 FROM inbox o
      WHERE o.source = r.source AND o.entity_key = r.entity_key
        AND o.status IN )sql" HOOKD_INBOX_OPEN R"sql(
        AND (COALESCE(o.sequence, 9223372036854775807), o.received_at, o.id)
          < (COALESCE(r.sequence, 9223372036854775807), r.received_at, r.id)))
  ORDER BY r.next_attempt_at, r.id LIMIT $4
  FOR UPDATE OF r SKIP LOCKED)
UPDATE inbox SET status = 'processing', lease_owner = $1, lease_until = $2
FROM due WHERE inbox.id = due.id
RETURNING {})sql";

constexpr std::string_view kUpdateSql = R"sql(
UPDATE inbox SET status = $1::text, attempts = attempts + $2,
  next_attempt_at = COALESCE($3, next_attempt_at), last_error = COALESCE($4, last_error),
  processed_at = CASE WHEN $1::text IN ('processed', 'stale', 'superseded',
                                        'duplicate-business-key') THEN $5
                      ELSE processed_at END,
  lease_owner = NULL, lease_until = NULL
WHERE id = $6 AND lease_owner = $7 AND status = 'processing'
RETURNING {})sql";

#undef HOOKD_INBOX_OPEN

// Parked events of the source that wait for `event_id` become due now.
constexpr std::string_view kReleaseDependentsSql = R"sql(
UPDATE inbox SET next_attempt_at = $1
WHERE source = $2 AND status = 'parked' AND next_attempt_at > $1
  AND EXISTS (SELECT 1 FROM json_array_elements_text(inbox.depends_on::json) d
              WHERE d = $3))sql";

bool settles(InboxStatus s) {
  return s == InboxStatus::kProcessed || s == InboxStatus::kStale ||
         s == InboxStatus::kSuperseded || s == InboxStatus::kDuplicate;
}

Status insert_history(PgConnection& c, const std::string& id, Millis at,
                      std::optional<InboxStatus> from, InboxStatus to, std::string_view note) {
  std::optional<std::string> from_text;
  if (from) from_text = std::string(to_string(*from));
  HOOKD_CHECK(
      c.query("INSERT INTO inbox_history (inbox_id, at, from_status, to_status, note) "
              "VALUES ($1, $2, $3, $4, $5)",
              Params().add_all(id, at, from_text, to_string(to), note)));
  return {};
}

Status upsert_entity(PgConnection& c, const InboxEntity& e, Millis now) {
  HOOKD_CHECK(
      c.query("INSERT INTO inbox_entities (source, entity_key, last_sequence, state, "
              "terminal, updated_at) VALUES ($1, $2, $3, $4, $5, $6) "
              "ON CONFLICT (source, entity_key) DO UPDATE SET "
              "last_sequence = excluded.last_sequence, state = excluded.state, "
              "terminal = excluded.terminal, updated_at = excluded.updated_at",
              Params().add_all(e.source, e.entity_key, e.last_sequence, e.state, e.terminal, now)));
  return {};
}

Result<InboxEvent> load_inbox(PgConnection& c, std::string_view where, const Params& params) {
  HOOKD_TRY(rows,
            c.query(fmt::format("SELECT {} FROM inbox WHERE {}", kInboxColumns, where), params));
  return single<InboxEvent>(rows, read_inbox, "inbox event");
}

}  // namespace

Result<InboxInsertOutcome> PgStore::inbox_insert_in_tx(PgConnection& c, InboxEvent& ev,
                                                       Millis now) {
  ev.id = ids_.next(id_prefix::kInbound);
  ev.received_at = now;
  ev.status = InboxStatus::kReceived;
  ev.next_attempt_at = now;
  Params p;
  p.add_all(ev.id, ev.source, ev.event_id, ev.business_key, ev.entity_key, ev.sequence,
            ev.event_time, ev.received_at, ev.next_attempt_at, encode_list(ev.depends_on),
            encode_headers(ev.headers));
  p.add_bytes(ev.payload);
  HOOKD_TRY(ins, c.query("INSERT INTO inbox (id, source, event_id, business_key, entity_key, "
                         "sequence, event_time, received_at, status, attempts, next_attempt_at, "
                         "depends_on, headers, payload) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, "
                         "'received', 0, $9, $10, $11, $12) "
                         "ON CONFLICT (source, event_id) DO NOTHING",
                         p));
  if (ins.affected() == 0) {
    HOOKD_TRY(rows, c.query("SELECT id FROM inbox WHERE source = $1 AND event_id = $2",
                            Params().add_all(ev.source, ev.event_id)));
    if (rows.size() == 0) return fail(ErrorCode::kInternal, "inbox insert ignored");
    return InboxInsertOutcome{false, rows.text(0, 0)};
  }
  HOOKD_CHECK(insert_history(c, ev.id, now, std::nullopt, InboxStatus::kReceived, "received"));
  return InboxInsertOutcome{true, ev.id};
}

Result<InboxInsertOutcome> PgStore::inbox_insert(InboxEvent ev) {
  return write([&](PgConnection& c) { return inbox_insert_in_tx(c, ev, clock_.now_ms()); });
}

Result<std::vector<InboxInsertOutcome>> PgStore::inbox_insert_batch(std::vector<InboxEvent> evs) {
  return write([&](PgConnection& c) -> Result<std::vector<InboxInsertOutcome>> {
    const Millis now = clock_.now_ms();
    std::vector<InboxInsertOutcome> out;
    for (auto ev : evs) {  // a copy: a retried transaction starts from the caller's events
      HOOKD_TRY(r, inbox_insert_in_tx(c, ev, now));
      out.push_back(std::move(r));
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
    if (filter.source) q.where("source = ?", {*filter.source});
    if (filter.status) q.where("status = ?", {std::string(to_string(*filter.status))});
    if (filter.entity_key) q.where("entity_key = ?", {*filter.entity_key});
    q.page(page);
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<InboxEvent>(rows, read_inbox), page,
                     [](const InboxEvent& e) { return e.id; });
  });
}

Result<std::vector<InboxEvent>> PgStore::inbox_claim_in_tx(PgConnection& c,
                                                           const InboxClaimRequest& req,
                                                           Millis now) {
  HOOKD_CHECK(c.exec(kClaimPlanSettings));  // walk the due order, stop at the limit
  HOOKD_TRY(rows, c.query(fmt::format(kClaimSql, qualify(kInboxColumns, "inbox")),
                          Params().add_all(req.lease_owner, now + req.lease_ms, now,
                                           std::max(req.limit, 0), req.source)));
  auto out = collect<InboxEvent>(rows, read_inbox);
  std::sort(out.begin(), out.end(), [](const InboxEvent& a, const InboxEvent& b) {
    return std::tie(a.next_attempt_at, a.id) < std::tie(b.next_attempt_at, b.id);
  });
  return out;
}

Result<std::vector<InboxEvent>> PgStore::inbox_claim(const InboxClaimRequest& req) {
  return write([&](PgConnection& c) { return inbox_claim_in_tx(c, req, clock_.now_ms()); },
               /*durable=*/false);  // a lease lost in a database crash: the row is claimable again
}

Result<InboxEvent> PgStore::inbox_update_in_tx(PgConnection& c, const InboxStatusUpdate& u,
                                               Millis now) {
  HOOKD_TRY(rows, c.query(fmt::format(kUpdateSql, kInboxColumns),
                          Params().add_all(to_string(u.to), u.count_attempt ? 1 : 0,
                                           u.next_attempt_at, u.error, now, u.id, u.lease_owner)));
  if (rows.size() == 0) return fail(ErrorCode::kConflict, "lease on inbox event " + u.id + " lost");
  InboxEvent ev = read_inbox(Row{rows, 0});
  HOOKD_CHECK(insert_history(c, ev.id, now, InboxStatus::kProcessing, u.to, u.note));
  if (u.entity) HOOKD_CHECK(upsert_entity(c, *u.entity, now));
  if (u.audit) HOOKD_CHECK(append_audit_in_tx(c, *u.audit, now));
  if (settles(u.to)) {
    HOOKD_CHECK(c.query(kReleaseDependentsSql, Params().add_all(now, ev.source, ev.event_id)));
  }
  return ev;
}

Result<InboxEvent> PgStore::inbox_update_status(const InboxStatusUpdate& u) {
  return write([&](PgConnection& c) -> Result<InboxEvent> {
    return inbox_update_in_tx(c, u, clock_.now_ms());
  });
}

Result<std::vector<Result<InboxEvent>>> PgStore::inbox_update_batch_in_tx(
    PgConnection& c, const std::vector<InboxStatusUpdate>& updates, Millis now) {
  return update_each_inbox_event(
      updates, [&](const InboxStatusUpdate& u) { return inbox_update_in_tx(c, u, now); });
}

Result<std::vector<Result<InboxEvent>>> PgStore::inbox_update_status_batch(
    const std::vector<InboxStatusUpdate>& updates) {
  return write(
      [&](PgConnection& c) { return inbox_update_batch_in_tx(c, updates, clock_.now_ms()); });
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
    HOOKD_TRY(rows, c.query("SELECT inbox_id, at, from_status, to_status, note FROM inbox_history "
                            "WHERE inbox_id = $1 ORDER BY seq",
                            Params().add(id)));
    return collect<InboxHistoryEntry>(rows, [](const Row& s) {
      auto from = s.opt_text(2);
      return InboxHistoryEntry{
          s.text(0), s.int64(1), from ? inbox_status_from(*from) : std::nullopt,
          inbox_status_from(s.text(3)).value_or(InboxStatus::kReceived), s.text(4)};
    });
  });
}

Result<InboxEntity> PgStore::inbox_entity(const std::string& source,
                                          const std::string& entity_key) {
  return read([&](PgConnection& c) -> Result<InboxEntity> {
    HOOKD_TRY(rows, c.query("SELECT source, entity_key, last_sequence, state, terminal, "
                            "updated_at FROM inbox_entities WHERE source = $1 AND entity_key = $2",
                            Params().add_all(source, entity_key)));
    return single<InboxEntity>(
        rows,
        [](const Row& s) {
          return InboxEntity{s.text(0),     s.text(1),    s.opt_int64(2),
                             s.opt_text(3), s.boolean(4), s.int64(5)};
        },
        "inbox entity");
  });
}

}  // namespace hookd::store::postgres
