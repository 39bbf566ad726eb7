// The inbound inbox on SQLite: dedup insert (ON CONFLICT DO NOTHING), ordered per-entity
// claim with leases, status changes with history and entity state in one transaction.
#include <fmt/format.h>
#include <algorithm>
#include <tuple>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/inbox_round_steps.hpp"
#include "store/list_filters.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

#define HOOKD_INBOX_OPEN "('received', 'processing', 'retry', 'parked')"

// Open rows are ordered per (source, entity_key) by (sequence, received_at, id); rows without
// a sequence sort after those with one. An entity has at most one event in flight: while one
// of its rows is `processing` nothing else of it is claimable, not even a row that sorts
// before it (it arrived late: decided after the one in flight, against the entity as that one
// left it, so stale). Otherwise only its first open row is claimable. A `processing` row whose
// lease expired (its node died) is claimable again, before anything else of its entity.
// (See docs/inbound.md "Ordering".)
constexpr std::string_view kClaimSql = R"sql(
UPDATE inbox SET status = 'processing', lease_owner = ?1, lease_until = ?2
WHERE id IN (
  SELECT r.id FROM inbox r
  WHERE r.status IN )sql" HOOKD_INBOX_OPEN R"sql( AND r.next_attempt_at <= ?3
    AND (r.lease_until IS NULL OR r.lease_until <= ?3)
    AND (?5 IS NULL OR r.source = ?5)
    AND (r.entity_key IS NULL OR (NOT EXISTS (
      SELECT 1 FROM inbox o
      WHERE o.source = r.source AND o.entity_key = r.entity_key
        AND o.status IN )sql" HOOKD_INBOX_OPEN R"sql(
        AND (COALESCE(o.sequence, 9223372036854775807), o.received_at, o.id)
          < (COALESCE(r.sequence, 9223372036854775807), r.received_at, r.id)
        AND (r.status <> 'processing' OR o.status = 'processing'))
    AND (r.status = 'processing' OR NOT EXISTS (
      SELECT 1 FROM inbox f
      WHERE f.source = r.source AND f.entity_key = r.entity_key
        AND f.status IN )sql" HOOKD_INBOX_OPEN R"sql( AND f.status = 'processing'
        AND f.id <> r.id))))
  ORDER BY r.next_attempt_at, r.id LIMIT ?4)
RETURNING {})sql";

constexpr std::string_view kUpdateSql = R"sql(
UPDATE inbox SET status = ?1, attempts = attempts + ?2,
  next_attempt_at = COALESCE(?3, next_attempt_at), last_error = COALESCE(?4, last_error),
  processed_at = CASE WHEN ?1 IN ('processed', 'stale', 'superseded', 'duplicate-business-key')
                      THEN ?5
                      ELSE processed_at END,
  lease_owner = NULL, lease_until = NULL
WHERE id = ?6 AND lease_owner = ?7 AND status = 'processing'
RETURNING {})sql";

#undef HOOKD_INBOX_OPEN

// Parked events of the source that wait for `event_id` become due now. This runs after every
// settled event, so it reads the source's parked rows only (partial index inbox_parked), not
// every open row: with a backlog of received events that scan was quadratic.
constexpr std::string_view kReleaseDependentsSql = R"sql(
UPDATE inbox INDEXED BY inbox_parked SET next_attempt_at = ?1
WHERE source = ?2 AND status = 'parked' AND next_attempt_at > ?1
  AND EXISTS (SELECT 1 FROM json_each(inbox.depends_on) d WHERE d.value = ?3))sql";

// An event being parked whose dependencies have all settled meanwhile is due at once: the
// release of the dependency may have run before this write (another node's round, or a
// caller that decided "park" on an older read), and would otherwise leave it to park_timeout.
constexpr std::string_view kWakeIfSettledSql = R"sql(
UPDATE inbox SET next_attempt_at = ?1
WHERE id = ?2 AND status = 'parked' AND next_attempt_at > ?1
  AND json_array_length(inbox.depends_on) > 0
  AND NOT EXISTS (SELECT 1 FROM json_each(inbox.depends_on) d WHERE NOT EXISTS (
    SELECT 1 FROM inbox s WHERE s.source = inbox.source AND s.event_id = d.value
      AND s.status IN ('processed', 'stale', 'superseded', 'duplicate-business-key'))))sql";

bool settles(InboxStatus s) {
  return s == InboxStatus::kProcessed || s == InboxStatus::kStale ||
         s == InboxStatus::kSuperseded || s == InboxStatus::kDuplicate;
}

Status insert_history(Connection& c, const std::string& id, Millis at,
                      std::optional<InboxStatus> from, InboxStatus to, std::string_view note) {
  HOOKD_TRY(ins, c.prepare("INSERT INTO inbox_history (inbox_id, at, from_status, to_status, note) "
                           "VALUES (?, ?, ?, ?, ?)"));
  std::optional<std::string> from_text;
  if (from) from_text = std::string(to_string(*from));
  return ins.bind_all(id, at, from_text, to_string(to), note).run();
}

// The entity's state after a forwarded event, guarded here whatever snapshot the caller
// decided on: last_sequence never decreases, and an older event (lower sequence) or a
// non-terminal one after a terminal state does not change the state.
Status upsert_entity(Connection& c, const InboxEntity& e, Millis now) {
  HOOKD_TRY(up, c.prepare(R"sql(
INSERT INTO inbox_entities (source, entity_key, last_sequence, state, terminal, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT (source, entity_key) DO UPDATE SET
  last_sequence = MAX(COALESCE(inbox_entities.last_sequence, excluded.last_sequence),
                      COALESCE(excluded.last_sequence, inbox_entities.last_sequence)),
  state = CASE WHEN (inbox_entities.terminal AND NOT excluded.terminal)
                 OR COALESCE(excluded.last_sequence < inbox_entities.last_sequence, 0)
               THEN inbox_entities.state ELSE excluded.state END,
  terminal = CASE WHEN (inbox_entities.terminal AND NOT excluded.terminal)
                    OR COALESCE(excluded.last_sequence < inbox_entities.last_sequence, 0)
                  THEN inbox_entities.terminal ELSE excluded.terminal END,
  updated_at = excluded.updated_at)sql"));
  return up.bind_all(e.source, e.entity_key, e.last_sequence, e.state, e.terminal, now).run();
}

Result<InboxEvent> load_inbox(Connection& c, std::string_view where, const std::string& a,
                              const std::optional<std::string>& b) {
  HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM inbox WHERE {}", kInboxColumns, where)));
  q.bind(1, a);
  if (b) q.bind(2, *b);
  return single<InboxEvent>(q, read_inbox, "inbox event");
}

}  // namespace

// One status change inside the caller's transaction (see InboxStore::inbox_update_status).
Result<InboxEvent> SqliteStore::inbox_update_in_tx(Connection& c, const InboxStatusUpdate& u,
                                                   Millis now) {
  HOOKD_TRY(up, c.prepare(fmt::format(kUpdateSql, kInboxColumns)));
  up.bind_all(to_string(u.to), u.count_attempt ? 1 : 0, u.next_attempt_at, u.error, now, u.id,
              u.lease_owner);
  HOOKD_TRY(found, up.step());
  if (!found) return fail(ErrorCode::kConflict, "lease on inbox event " + u.id + " lost");
  InboxEvent ev = read_inbox(up);
  HOOKD_CHECK(up.run());
  HOOKD_CHECK(insert_history(c, ev.id, now, InboxStatus::kProcessing, u.to, u.note));
  if (u.entity) HOOKD_CHECK(upsert_entity(c, *u.entity, now));
  if (u.audit) HOOKD_CHECK(append_audit_in_tx(c, *u.audit, now));
  if (u.difference) {
    // Recorded once: a difference already recorded for (source, kind, subject) is kept as is.
    Difference d = *u.difference;
    HOOKD_TRY(recorded, record_difference_in_tx(c, d, false, now));
    static_cast<void>(recorded);
  }
  if (settles(u.to)) {
    HOOKD_TRY(release, c.prepare(kReleaseDependentsSql));
    HOOKD_CHECK(release.bind_all(now, ev.source, ev.event_id).run());
  }
  if (u.to == InboxStatus::kParked) {
    HOOKD_TRY(wake, c.prepare(kWakeIfSettledSql));
    HOOKD_CHECK(wake.bind_all(now, ev.id).run());
  }
  return ev;
}

Result<InboxInsertOutcome> SqliteStore::inbox_insert_in_tx(Connection& c, InboxEvent& ev,
                                                           Millis now) {
  ev.id = ids_.next(id_prefix::kInbound);
  ev.received_at = now;
  ev.status = InboxStatus::kReceived;
  ev.next_attempt_at = now;
  HOOKD_TRY(
      ins, c.prepare("INSERT INTO inbox (id, source, event_id, business_key, entity_key, sequence, "
                     "event_time, received_at, status, attempts, next_attempt_at, depends_on, "
                     "headers, payload) VALUES (?,?,?,?,?,?,?,?,'received',0,?,?,?,?) "
                     "ON CONFLICT (source, event_id) DO NOTHING"));
  ins.bind_all(ev.id, ev.source, ev.event_id, ev.business_key, ev.entity_key, ev.sequence,
               ev.event_time, ev.received_at, ev.next_attempt_at, encode_list(ev.depends_on),
               encode_headers(ev.headers));
  ins.bind_blob(12, ev.payload);
  HOOKD_CHECK(ins.run());
  if (c.changes() == 0) {
    HOOKD_TRY(q, c.prepare("SELECT id FROM inbox WHERE source = ? AND event_id = ?"));
    HOOKD_TRY(row, q.bind_all(ev.source, ev.event_id).step());
    if (!row) return fail(ErrorCode::kInternal, "inbox insert ignored without duplicate");
    return InboxInsertOutcome{false, q.text(0)};
  }
  HOOKD_CHECK(insert_history(c, ev.id, now, std::nullopt, InboxStatus::kReceived, ev.history_note));
  return InboxInsertOutcome{true, ev.id};
}

Result<InboxInsertOutcome> SqliteStore::inbox_insert(InboxEvent ev) {
  return write([&](Connection& c) { return inbox_insert_in_tx(c, ev, clock_.now_ms()); });
}

Result<std::vector<InboxInsertOutcome>> SqliteStore::inbox_insert_batch_in_tx(
    Connection& c, std::vector<InboxEvent>& evs, Millis now) {
  std::vector<InboxInsertOutcome> out;
  out.reserve(evs.size());
  for (auto& ev : evs) {
    HOOKD_TRY(r, inbox_insert_in_tx(c, ev, now));
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<InboxInsertOutcome>> SqliteStore::inbox_insert_batch(
    std::vector<InboxEvent> evs) {
  return write([&](Connection& c) { return inbox_insert_batch_in_tx(c, evs, clock_.now_ms()); });
}

Result<InboxEvent> SqliteStore::inbox_get(const std::string& id) {
  return read([&](Connection& c) { return load_inbox(c, "id = ?", id, std::nullopt); });
}

Result<InboxEvent> SqliteStore::inbox_find(const std::string& source, const std::string& event_id) {
  return read([&](Connection& c) {
    return load_inbox(c, "source = ? AND event_id = ?", source, event_id);
  });
}

Result<Page<InboxEvent>> SqliteStore::inbox_list(const InboxFilter& filter,
                                                 const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<InboxEvent>> {
    Query q(fmt::format("SELECT {} FROM inbox", kInboxColumns));
    filter_inbox(q, filter);
    q.page(page);
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<InboxEvent>(stmt, read_inbox));
    return make_page(std::move(rows), page, [](const InboxEvent& e) { return e.id; });
  });
}

Result<std::vector<InboxEvent>> SqliteStore::inbox_claim_in_tx(Connection& c,
                                                               const InboxClaimRequest& req,
                                                               Millis now) {
  HOOKD_TRY(q, c.prepare(fmt::format(kClaimSql, kInboxColumns)));
  q.bind_all(req.lease_owner, now + req.lease_ms, now, std::max(req.limit, 0), req.source);
  HOOKD_TRY(rows, collect<InboxEvent>(q, read_inbox));
  std::sort(rows.begin(), rows.end(), [](const InboxEvent& a, const InboxEvent& b) {
    return std::tie(a.next_attempt_at, a.id) < std::tie(b.next_attempt_at, b.id);
  });
  return std::move(rows);
}

Result<std::vector<InboxEvent>> SqliteStore::inbox_claim(const InboxClaimRequest& req) {
  return write([&](Connection& c) { return inbox_claim_in_tx(c, req, clock_.now_ms()); });
}

Result<InboxEvent> SqliteStore::inbox_update_status(const InboxStatusUpdate& u) {
  return write([&](Connection& c) { return inbox_update_in_tx(c, u, clock_.now_ms()); });
}

Result<std::vector<Result<InboxEvent>>> SqliteStore::inbox_update_batch_in_tx(
    Connection& c, const std::vector<InboxStatusUpdate>& updates, Millis now) {
  return update_each_inbox_event(
      updates, [&](const InboxStatusUpdate& u) { return inbox_update_in_tx(c, u, now); });
}

Result<std::vector<Result<InboxEvent>>> SqliteStore::inbox_update_status_batch(
    const std::vector<InboxStatusUpdate>& updates) {
  return write(
      [&](Connection& c) { return inbox_update_batch_in_tx(c, updates, clock_.now_ms()); });
}

Result<bool> SqliteStore::inbox_business_key_processed(const std::string& source,
                                                       const std::string& business_key) {
  return read([&](Connection& c) -> Result<bool> {
    HOOKD_TRY(q, c.prepare("SELECT 1 FROM inbox WHERE source = ? AND business_key = ? "
                           "AND status = 'processed' LIMIT 1"));
    HOOKD_TRY(row, q.bind_all(source, business_key).step());
    return row;
  });
}

Result<int> SqliteStore::inbox_release_leases(const std::string& lease_owner) {
  return write([&](Connection& c) -> Result<int> {
    HOOKD_TRY(q, c.prepare("UPDATE inbox SET status = CASE WHEN attempts = 0 THEN 'received' "
                           "ELSE 'retry' END, next_attempt_at = ?, lease_owner = NULL, "
                           "lease_until = NULL WHERE status = 'processing' AND lease_owner = ?"));
    HOOKD_CHECK(q.bind_all(clock_.now_ms(), lease_owner).run());
    return static_cast<int>(c.changes());
  });
}

Result<std::vector<InboxHistoryEntry>> SqliteStore::inbox_history(const std::string& id) {
  return read([&](Connection& c) -> Result<std::vector<InboxHistoryEntry>> {
    HOOKD_TRY(q,
              c.prepare(fmt::format("SELECT {} FROM inbox_history WHERE inbox_id = ? ORDER BY seq",
                                    kInboxHistoryColumns)));
    q.bind_all(id);
    return collect<InboxHistoryEntry>(q, read_inbox_history);
  });
}

Result<InboxEntity> SqliteStore::inbox_entity(const std::string& source,
                                              const std::string& entity_key) {
  return read([&](Connection& c) -> Result<InboxEntity> {
    HOOKD_TRY(q, c.prepare(fmt::format(
                     "SELECT {} FROM inbox_entities WHERE source = ? AND entity_key = ?",
                     kInboxEntityColumns)));
    q.bind_all(source, entity_key);
    return single<InboxEntity>(q, read_inbox_entity, "inbox entity");
  });
}

}  // namespace hookd::store::sqlite
