#include "store/postgres/pg_inbox_sql.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "hookd/ids.hpp"
#include "store/postgres/pg_arrays.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/reconcile_codec.hpp"

namespace hookd::store::postgres {
namespace {

#define HOOKD_INBOX_OPEN "('received', 'processing', 'retry', 'parked')"

// Open rows are ordered per (source, entity_key) by (sequence, received_at, id); rows
// without a sequence sort after those with one. An entity has at most one event in flight:
// while one of its rows is `processing` nothing else of it is claimable, not even a row that
// sorts before it; otherwise only its first open row is. A `processing` row whose lease
// expired (its node died) is claimable again, before anything else of its entity. Claims of
// several nodes take turns (kInboxClaimLock), so that each sees what the others have claimed.
// `f.id <> r.id` (always true there) keeps the in-flight probe a correlated index scan of
// inbox_open: without it the planner may hash the whole table's processing rows once per
// claim instead (a sequential scan). (See docs/inbound.md "Ordering".)
constexpr std::string_view kClaimSql = R"sql(
WITH due AS (
  SELECT r.id FROM inbox r
  WHERE r.status IN )sql" HOOKD_INBOX_OPEN R"sql( AND r.next_attempt_at <= $3
    AND (r.lease_until IS NULL OR r.lease_until <= $3)
    AND ($5::text IS NULL OR r.source = $5::text)
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
  ORDER BY r.next_attempt_at, r.id LIMIT $4
  FOR UPDATE OF r SKIP LOCKED)
UPDATE inbox SET status = 'processing', lease_owner = $1, lease_until = $2
FROM due WHERE inbox.id = due.id
RETURNING {})sql";

#undef HOOKD_INBOX_OPEN

// $1..$8: one element per update (`ord` is its 1-based position); $9 now; $10..$15 the
// entity states, $16..$24 the audit entries and $25..$41 the differences (recorded open,
// once per (source, kind, subject): the first of the batch, none when recorded already),
// each naming its update by `ord`, joined to the rows the UPDATE changed (a lost lease
// writes nothing else). The lease guard is written `(...) IS TRUE` so that no index can
// serve it and only the primary key drives the join (as for the deliveries,
// pg_delivery_sql.cpp). DISTINCT ON: an entity upserted twice in one statement is an error;
// the batch's last state of it is the one written, as when the updates ran one after the
// other. The written state never lowers last_sequence and never leaves a terminal state,
// whatever snapshot the caller decided on (as sqlite_inbox.cpp).
constexpr std::string_view kUpdateSql = R"sql(
WITH r AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[],
                       $6::text[], $7::boolean[], $8::text[])
    WITH ORDINALITY AS r(id, owner, status, attempt, next_at, error, settles, note, ord)),
done AS (
  UPDATE inbox i SET status = r.status, attempts = i.attempts + r.attempt,
    next_attempt_at = COALESCE(r.next_at, i.next_attempt_at),
    last_error = COALESCE(r.error, i.last_error),
    processed_at = CASE WHEN r.settles THEN $9::bigint ELSE i.processed_at END,
    lease_owner = NULL, lease_until = NULL
  FROM r WHERE i.id = r.id AND (i.lease_owner = r.owner AND i.status = 'processing') IS TRUE
  RETURNING {0}, r.ord, r.note),
history AS (
  INSERT INTO inbox_history (inbox_id, at, from_status, to_status, note)
  SELECT done.id, $9::bigint, 'processing', done.status, done.note FROM done ORDER BY done.ord),
entities AS (
  INSERT INTO inbox_entities (source, entity_key, last_sequence, state, terminal, updated_at)
  SELECT DISTINCT ON (e.source, e.entity_key) e.source, e.entity_key, e.last_sequence,
    e.state, e.terminal, $9::bigint
  FROM unnest($10::bigint[], $11::text[], $12::text[], $13::bigint[], $14::text[],
              $15::boolean[]) AS e(ord, source, entity_key, last_sequence, state, terminal)
    JOIN done ON done.ord = e.ord
  ORDER BY e.source, e.entity_key, e.ord DESC
  ON CONFLICT (source, entity_key) DO UPDATE SET
    last_sequence = GREATEST(inbox_entities.last_sequence, excluded.last_sequence),
    state = CASE WHEN (inbox_entities.terminal AND NOT excluded.terminal)
                   OR COALESCE(excluded.last_sequence < inbox_entities.last_sequence, FALSE)
                 THEN inbox_entities.state ELSE excluded.state END,
    terminal = CASE WHEN (inbox_entities.terminal AND NOT excluded.terminal)
                      OR COALESCE(excluded.last_sequence < inbox_entities.last_sequence, FALSE)
                    THEN inbox_entities.terminal ELSE excluded.terminal END,
    updated_at = excluded.updated_at),
audited AS (
  INSERT INTO audit_log ({1})
  SELECT a.id, $9::bigint, a.actor, a.action, a.target_type, a.target_id, a.reason, a.before,
    a.after
  FROM unnest($16::bigint[], $17::text[], $18::text[], $19::text[], $20::text[], $21::text[],
              $22::text[], $23::text[], $24::text[])
    AS a(ord, id, actor, action, target_type, target_id, reason, before, after)
    JOIN done ON done.ord = a.ord
  ORDER BY a.ord),
differences AS (
  INSERT INTO reconcile_differences ({3})
  SELECT DISTINCT ON (d.source, d.kind, d.subject) d.id, d.run_id, d.source, d.kind,
    d.subject, d.event_id, d.entity_key, d.local_state, d.remote_state, d.detail,
    d.evidence_request, d.evidence_status, d.evidence_excerpt, d.evidence_sha256,
    d.repair_event, d.repair_payload, 'open', $9::bigint, $9::bigint
  FROM unnest($25::bigint[], $26::text[], $27::text[], $28::text[], $29::text[], $30::text[],
              $31::text[], $32::text[], $33::text[], $34::text[], $35::text[], $36::text[],
              $37::bigint[], $38::bytea[], $39::text[], $40::text[], $41::bytea[])
    AS d(ord, id, run_id, source, kind, subject, event_id, entity_key, local_state,
         remote_state, detail, evidence_request, evidence_status, evidence_excerpt,
         evidence_sha256, repair_event, repair_payload)
    JOIN done ON done.ord = d.ord
  ORDER BY d.source, d.kind, d.subject, d.ord
  ON CONFLICT (source, kind, subject) DO NOTHING)
SELECT {2} FROM done)sql";

// `s`: the events this transaction settled (processed_at = now: their update succeeded).
constexpr std::string_view kReleaseDependentsSql = R"sql(
UPDATE inbox p SET next_attempt_at = $1::bigint
FROM inbox s
WHERE s.id = ANY($2::text[]) AND s.processed_at = $1::bigint
  AND p.source = s.source AND p.status = 'parked' AND p.next_attempt_at > $1::bigint
  AND EXISTS (SELECT 1 FROM json_array_elements_text(p.depends_on::json) d
              WHERE d = s.event_id))sql";

// Events this transaction parked whose dependencies have all settled meanwhile are due at
// once: another node's round may have settled the dependency (and run its release) between
// the forwarder's decision and this write. Rounds take turns (kInboxClaimLock from their
// start), so either that round's release sees this row parked, or this statement sees the
// dependency settled.
constexpr std::string_view kWakeIfSettledSql = R"sql(
UPDATE inbox p SET next_attempt_at = $1::bigint
WHERE p.id = ANY($2::text[]) AND p.status = 'parked' AND p.next_attempt_at > $1::bigint
  AND json_array_length(p.depends_on::json) > 0
  AND NOT EXISTS (SELECT 1 FROM json_array_elements_text(p.depends_on::json) d
    WHERE NOT EXISTS (SELECT 1 FROM inbox s WHERE s.source = p.source AND s.event_id = d
      AND s.status IN ('processed', 'stale', 'superseded', 'duplicate-business-key'))))sql";

// $1..$11: one element per event ($11 its first history row's note), $12 now. Inserted in
// (source, event_id) order so that two batches sharing events lock them in the same order
// (no deadlock); the first of two equal events of the batch is the one inserted. `k`: the
// row this statement inserted for the event's key (the first of duplicates in the batch),
// `o`: the row committed before it.
constexpr std::string_view kInsertBatchSql = R"sql(
WITH v AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[],
                       $6::bigint[], $7::bigint[], $8::text[], $9::text[], $10::bytea[],
                       $11::text[])
    WITH ORDINALITY AS v(id, source, event_id, business_key, entity_key, sequence,
                         event_time, depends_on, headers, payload, note, ord)),
ins AS (
  INSERT INTO inbox (id, source, event_id, business_key, entity_key, sequence, event_time,
                     received_at, status, attempts, next_attempt_at, depends_on, headers,
                     payload)
  SELECT v.id, v.source, v.event_id, v.business_key, v.entity_key, v.sequence, v.event_time,
    $12::bigint, 'received', 0, $12::bigint, v.depends_on, v.headers, v.payload
  FROM v ORDER BY v.source COLLATE "C", v.event_id COLLATE "C", v.ord
  ON CONFLICT (source, event_id) DO NOTHING
  RETURNING id, source, event_id),
history AS (
  INSERT INTO inbox_history (inbox_id, at, from_status, to_status, note)
  SELECT ins.id, $12::bigint, NULL, 'received', v.note FROM ins JOIN v ON v.id = ins.id)
SELECT n.id, COALESCE(k.id, o.id)
FROM v LEFT JOIN ins n ON n.id = v.id
  LEFT JOIN ins k ON k.source = v.source AND k.event_id = v.event_id
  LEFT JOIN inbox o ON o.source = v.source AND o.event_id = v.event_id
ORDER BY v.ord)sql";

bool settles(InboxStatus s) {
  return s == InboxStatus::kProcessed || s == InboxStatus::kStale ||
         s == InboxStatus::kSuperseded || s == InboxStatus::kDuplicate;
}

// One difference of kUpdateSql's $25..$41, named by its update's `ord`.
void add_difference(std::vector<ArrayLiteral>& col, std::int64_t ord, const Difference& d) {
  col[0].add(ord);
  col[1].add(d.id);
  col[2].add(d.run_id);
  col[3].add(d.source);
  col[4].add(to_string(d.kind));
  col[5].add(d.subject);
  col[6].add(d.event_id);
  col[7].add(d.entity_key);
  col[8].add(d.local_state);
  col[9].add(d.remote_state);
  col[10].add(d.detail);
  col[11].add(d.evidence.request);
  col[12].add(d.evidence.status);
  col[13].add_bytes(d.evidence.excerpt);
  col[14].add(d.evidence.sha256);
  if (d.repair_event) {
    col[15].add(encode_repair_event(*d.repair_event));
    col[16].add_bytes(d.repair_event->payload);
  } else {
    col[15].add(std::nullopt);
    col[16].add_bytes("");
  }
}

Params params_of(const std::vector<ArrayLiteral>& columns) {
  Params p;
  for (const auto& col : columns) p.add(col.str());
  return p;
}

}  // namespace

const std::string& inbox_claim_sql() {
  static const std::string sql = fmt::format(kClaimSql, qualify(kInboxColumns, "inbox"));
  return sql;
}

Params inbox_claim_params(const InboxClaimRequest& req, Millis now) {
  return Params().add_all(req.lease_owner, now + req.lease_ms, now, std::max(req.limit, 0),
                          req.source);
}

std::vector<InboxEvent> claimed_inbox_events(const Rows& rows) {
  auto out = collect<InboxEvent>(rows, read_inbox);
  std::sort(out.begin(), out.end(), [](const InboxEvent& a, const InboxEvent& b) {
    return std::tie(a.next_attempt_at, a.id) < std::tie(b.next_attempt_at, b.id);
  });
  return out;
}

const std::string& inbox_update_sql() {
  static const std::string sql = fmt::format(kUpdateSql, qualify(kInboxColumns, "i"), kAuditColumns,
                                             kInboxColumns, kDifferenceColumns);
  return sql;
}

Params inbox_update_params(const std::vector<InboxStatusUpdate>& updates, Millis now,
                           IdGenerator& ids) {
  std::vector<ArrayLiteral> update(8), entity(6), audit(9), difference(17);
  std::int64_t ord = 0;
  for (const auto& u : updates) {
    ++ord;
    update[0].add(u.id);
    update[1].add(u.lease_owner);
    update[2].add(to_string(u.to));
    update[3].add(static_cast<std::int64_t>(u.count_attempt ? 1 : 0));
    update[4].add(u.next_attempt_at);
    update[5].add(u.error);
    update[6].add(settles(u.to));
    update[7].add(u.note);
    if (u.entity) {
      const InboxEntity& e = *u.entity;
      entity[0].add(ord);
      entity[1].add(e.source);
      entity[2].add(e.entity_key);
      entity[3].add(e.last_sequence);
      entity[4].add(e.state);
      entity[5].add(e.terminal);
    }
    if (u.audit) {
      const AuditEntry& a = *u.audit;
      audit[0].add(ord);
      audit[1].add(ids.next(id_prefix::kAudit));
      audit[2].add(a.actor);
      audit[3].add(a.action);
      audit[4].add(a.target_type);
      audit[5].add(a.target_id);
      audit[6].add(a.reason);
      audit[7].add(a.before);
      audit[8].add(a.after);
    }
    if (u.difference) {
      add_difference(difference, ord,
                     recorded_difference(*u.difference, ids.next(id_prefix::kDifference),
                                         DifferenceState::kOpen, now));
    }
  }
  Params p;
  for (const auto& col : update) p.add(col.str());
  p.add(now);
  for (const auto& col : entity) p.add(col.str());
  for (const auto& col : audit) p.add(col.str());
  for (const auto& col : difference) p.add(col.str());
  return p;
}

const std::string& inbox_release_dependents_sql() {
  static const std::string sql(kReleaseDependentsSql);
  return sql;
}

const std::string& inbox_wake_if_settled_sql() {
  static const std::string sql(kWakeIfSettledSql);
  return sql;
}

std::optional<Params> inbox_wake_if_settled_params(const std::vector<InboxStatusUpdate>& updates,
                                                   Millis now) {
  ArrayLiteral parked;
  bool any = false;
  for (const auto& u : updates) {
    if (u.to != InboxStatus::kParked) continue;
    parked.add(u.id);
    any = true;
  }
  if (!any) return std::nullopt;
  return Params().add_all(now, parked.str());
}

std::optional<Params> inbox_release_params(const std::vector<InboxStatusUpdate>& updates,
                                           Millis now) {
  ArrayLiteral settled;
  bool any = false;
  for (const auto& u : updates) {
    if (!settles(u.to)) continue;
    settled.add(u.id);
    any = true;
  }
  if (!any) return std::nullopt;
  return Params().add_all(now, settled.str());
}

std::vector<Result<InboxEvent>> updated_inbox_events(const Rows& rows,
                                                     const std::vector<InboxStatusUpdate>& updates,
                                                     const std::vector<bool>& repeated) {
  std::unordered_map<std::string, InboxEvent> updated;
  for (auto& ev : collect<InboxEvent>(rows, read_inbox)) updated.emplace(ev.id, std::move(ev));
  std::vector<Result<InboxEvent>> out;
  out.reserve(updates.size());
  for (std::size_t i = 0; i < updates.size(); ++i) {
    auto found = repeated[i] ? updated.end() : updated.find(updates[i].id);
    if (found == updated.end()) {
      out.push_back(fail(ErrorCode::kConflict, "lease on inbox event " + updates[i].id + " lost"));
    } else {
      out.push_back(found->second);
    }
  }
  return out;
}

const std::string& inbox_insert_batch_sql() {
  static const std::string sql(kInsertBatchSql);
  return sql;
}

Params inbox_insert_batch_params(std::vector<InboxEvent>& events, Millis now, IdGenerator& ids) {
  std::vector<ArrayLiteral> columns(11);
  for (auto& ev : events) {
    ev.id = ids.next(id_prefix::kInbound);
    ev.received_at = now;
    ev.status = InboxStatus::kReceived;
    ev.next_attempt_at = now;
    columns[0].add(ev.id);
    columns[1].add(ev.source);
    columns[2].add(ev.event_id);
    columns[3].add(ev.business_key);
    columns[4].add(ev.entity_key);
    columns[5].add(ev.sequence);
    columns[6].add(ev.event_time);
    columns[7].add(encode_list(ev.depends_on));
    columns[8].add(encode_headers(ev.headers));
    columns[9].add_bytes(ev.payload);
    columns[10].add(ev.history_note);
  }
  return params_of(columns).add(now);
}

}  // namespace hookd::store::postgres
