// The reconciler's store on SQLite (ReconcileStore, docs/reconciliation.md): the source's
// lease and cursor, runs, differences recorded once per (source, kind, subject) with their
// repair through the inbound insert, the actions a person (or `auto`) takes on them, and the
// scans that find stuck entities and timed-out parked events. Every method is one write
// transaction on the writer (or a read on a reader); a feed page commits without its own
// fsync (see reconcile_apply_page).
#include <fmt/format.h>

#include <algorithm>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/reconcile_codec.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

// The lease is free when nobody holds it or it ran out; its holder may take it again.
constexpr std::string_view kTakeLeaseSql = R"sql(
INSERT INTO reconcile_sources (source, lease_owner, lease_until) VALUES (?1, ?2, ?3)
ON CONFLICT (source) DO UPDATE SET lease_owner = excluded.lease_owner,
  lease_until = excluded.lease_until
WHERE reconcile_sources.lease_owner IS NULL OR reconcile_sources.lease_until IS NULL
   OR reconcile_sources.lease_until <= ?4 OR reconcile_sources.lease_owner = ?2
RETURNING {})sql";

// A page's end, only while owner ?2 holds the lease at ?3 (renewed when ?4 > 0): the cursor
// ?5 and the watermark ?6 (NULL: unchanged).
constexpr std::string_view kPageLeaseSql = R"sql(
UPDATE reconcile_sources SET cursor = ?5, watermark_at = COALESCE(?6, watermark_at),
  lease_until = CASE WHEN ?4 > 0 THEN ?3 + ?4 ELSE lease_until END
WHERE source = ?1 AND lease_owner = ?2 AND lease_until > ?3)sql";

constexpr std::string_view kRunCountsSql = R"sql(
UPDATE reconcile_runs SET items_read = items_read + ?1,
  differences_found = differences_found + ?2, repaired = repaired + ?3
WHERE id = ?4 AND source = COALESCE(?5, source))sql";

constexpr std::string_view kInsertDifferenceSql = R"sql(
INSERT INTO reconcile_differences ({})
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?18)
ON CONFLICT (source, kind, subject) DO NOTHING)sql";

// A parked event's dependencies that have not settled, in their order.
constexpr std::string_view kUnsettledSql = R"sql(
SELECT d.value FROM json_each(?1) d
WHERE NOT EXISTS (SELECT 1 FROM inbox s WHERE s.source = ?2 AND s.event_id = d.value
  AND s.status IN ('processed', 'stale', 'superseded', 'duplicate-business-key'))
ORDER BY d.key)sql";

Status append_action(Connection& c, const DifferenceActionRecord& r) {
  HOOKD_TRY(ins, c.prepare(fmt::format("INSERT INTO reconcile_actions ({}) VALUES (?,?,?,?,?,?,?)",
                                       kDifferenceActionColumns)));
  return ins.bind_all(r.difference_id, to_string(r.action), r.by, r.reason, r.before, r.after, r.at)
      .run();
}

Result<Difference> load_difference(Connection& c, const std::string& id) {
  HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM reconcile_differences WHERE id = ?",
                                     kDifferenceColumns)));
  q.bind_all(id);
  return single<Difference>(q, read_difference, "difference " + id);
}

Result<ReconcileRun> load_run(Connection& c, const std::string& id) {
  HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM reconcile_runs WHERE id = ?",
                                     kReconcileRunColumns)));
  q.bind_all(id);
  return single<ReconcileRun>(q, read_reconcile_run, "reconcile run " + id);
}

Result<bool> in_inbox(Connection& c, const std::string& source, const std::string& event_id) {
  HOOKD_TRY(q, c.prepare("SELECT 1 FROM inbox WHERE source = ? AND event_id = ?"));
  return q.bind_all(source, event_id).step();
}

Result<std::optional<InboxEntity>> find_entity(Connection& c, const InboxEntity& key) {
  HOOKD_TRY(
      q, c.prepare(fmt::format("SELECT {} FROM inbox_entities WHERE source = ? AND entity_key = ?",
                               kInboxEntityColumns)));
  HOOKD_TRY(row, q.bind_all(key.source, key.entity_key).step());
  if (!row) return std::optional<InboxEntity>{};
  return std::optional<InboxEntity>(read_inbox_entity(q));
}

// A person sets the entity's state: written as given (not the forwarder's guarded upsert).
Status set_entity(Connection& c, const InboxEntity& e, Millis now) {
  HOOKD_TRY(up, c.prepare(R"sql(
INSERT INTO inbox_entities (source, entity_key, last_sequence, state, terminal, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT (source, entity_key) DO UPDATE SET
  last_sequence = COALESCE(excluded.last_sequence, inbox_entities.last_sequence),
  state = excluded.state, terminal = excluded.terminal, updated_at = excluded.updated_at)sql"));
  return up.bind_all(e.source, e.entity_key, e.last_sequence, e.state, e.terminal, now).run();
}

}  // namespace

// Records `d` unless its (source, kind, subject) is recorded (then false). With `repair` and a
// repair event: the event is inserted (ON CONFLICT DO NOTHING, note "reconciled: <id>") and
// `auto`'s repair action appended; `d` is then repaired.
Result<bool> SqliteStore::record_difference_in_tx(Connection& c, Difference& d, bool repair,
                                                  Millis now) {
  const bool repairs = repair && d.repair_event.has_value();
  d = recorded_difference(std::move(d), ids_.next(id_prefix::kDifference),
                          repairs ? DifferenceState::kRepaired : DifferenceState::kOpen, now);
  HOOKD_TRY(ins, c.prepare(fmt::format(kInsertDifferenceSql, kDifferenceColumns)));
  ins.bind_all(d.id, d.run_id, d.source, to_string(d.kind), d.subject, d.event_id, d.entity_key,
               d.local_state, d.remote_state, d.detail, d.evidence.request, d.evidence.status);
  ins.bind_blob(13, d.evidence.excerpt).bind(14, d.evidence.sha256);
  if (d.repair_event) {
    ins.bind(15, encode_repair_event(*d.repair_event)).bind_blob(16, d.repair_event->payload);
  } else {
    ins.bind(15, std::nullopt).bind_blob(16, "");
  }
  ins.bind(17, to_string(d.state)).bind(18, now);
  HOOKD_CHECK(ins.run());
  if (c.changes() == 0) return false;
  if (repairs) {
    InboxEvent ev = repair_insert(d);
    HOOKD_CHECK(inbox_insert_in_tx(c, ev, now));
    HOOKD_CHECK(append_action(c, auto_repair_record(d, now)));
  }
  return true;
}

Result<ReconcileStart> SqliteStore::reconcile_begin(const std::string& source,
                                                    const std::string& owner, Millis lease_ms,
                                                    const std::string& trigger) {
  return write([&](Connection& c) -> Result<ReconcileStart> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(take, c.prepare(fmt::format(kTakeLeaseSql, kReconcileSourceColumns)));
    take.bind_all(source, owner, now + lease_ms, now);
    HOOKD_TRY(taken, take.step());
    if (!taken) {
      return fail(ErrorCode::kConflict, "a reconcile run of " + source + " is in progress");
    }
    ReconcileStart start;
    start.cursor = read_reconcile_cursor(take);
    HOOKD_CHECK(take.run());
    // Whoever held the lease before is gone (it ran out, or this owner restarted after a
    // crash): its run rows would read "running" forever.
    HOOKD_TRY(orphans, c.prepare("UPDATE reconcile_runs SET finished_at = ?, error = ? "
                                 "WHERE source = ? AND finished_at IS NULL"));
    HOOKD_CHECK(orphans.bind_all(now, std::string(kInterruptedRunError), source).run());
    start.run.id = ids_.next(id_prefix::kReconcileRun);
    start.run.source = source;
    start.run.trigger = trigger;
    start.run.owner = owner;
    start.run.started_at = now;
    HOOKD_TRY(ins, c.prepare("INSERT INTO reconcile_runs (id, source, trigger, owner, started_at) "
                             "VALUES (?, ?, ?, ?, ?)"));
    HOOKD_CHECK(ins.bind_all(start.run.id, source, trigger, owner, now).run());
    return start;
  });
}

// Committed without its own fsync (write_relaxed): the page's differences, inserts, counts and
// the cursor that moves past them are one transaction, so what a power failure may lose is
// whole pages, and the next run reads them again from the older cursor (the dedup makes that
// harmless; an event forwarded meanwhile is forwarded again: at least once). The next durable
// commit makes it durable. Without this a run would wait for one fsync per page.
Result<ReconcilePageResult> SqliteStore::reconcile_apply_page(const ReconcilePage& page) {
  return write_relaxed([&](Connection& c) -> Result<ReconcilePageResult> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(lease, c.prepare(kPageLeaseSql));
    lease.bind_all(page.source, page.lease_owner, now, page.lease_ms, page.next_cursor,
                   page.watermark_at);
    HOOKD_CHECK(lease.run());
    if (c.changes() == 0) {
      return fail(ErrorCode::kConflict,
                  "the reconcile lease of " + page.source + " is not held by " + page.lease_owner);
    }
    ReconcilePageResult out;
    for (const auto& item : page.items) {
      HOOKD_TRY(known, in_inbox(c, page.source, item.event.event_id));
      if (known) continue;
      Difference d = missing_difference_of(page, item);
      HOOKD_TRY(recorded, record_difference_in_tx(c, d, page.repair, now));
      if (!recorded) continue;
      if (d.state == DifferenceState::kRepaired) ++out.repaired;
      out.recorded.push_back(std::move(d));
    }
    HOOKD_TRY(counts, c.prepare(kRunCountsSql));
    counts.bind_all(static_cast<std::int64_t>(page.items.size()),
                    static_cast<std::int64_t>(out.recorded.size()), out.repaired, page.run_id,
                    page.source);
    HOOKD_CHECK(counts.run());
    if (c.changes() == 0) {
      return fail(ErrorCode::kNotFound,
                  "reconcile run " + page.run_id + " of " + page.source + " not found");
    }
    return out;
  });
}

Result<std::vector<Difference>> SqliteStore::reconcile_record(
    const std::vector<DifferenceFinding>& findings) {
  return write([&](Connection& c) -> Result<std::vector<Difference>> {
    const Millis now = clock_.now_ms();
    std::vector<Difference> out;
    for (const auto& f : findings) {
      Difference d = f.difference;
      HOOKD_TRY(recorded, record_difference_in_tx(c, d, f.repair, now));
      if (!recorded) continue;
      if (!d.run_id.empty()) {
        HOOKD_TRY(counts, c.prepare(kRunCountsSql));
        const std::int64_t repaired = d.state == DifferenceState::kRepaired ? 1 : 0;
        HOOKD_CHECK(counts.bind_all(0, 1, repaired, d.run_id, std::nullopt).run());
      }
      out.push_back(std::move(d));
    }
    return out;
  });
}

Result<ReconcileRun> SqliteStore::reconcile_finish(const std::string& run_id,
                                                   const std::string& owner,
                                                   std::optional<std::string> error) {
  return write([&](Connection& c) -> Result<ReconcileRun> {
    HOOKD_TRY(up, c.prepare(fmt::format("UPDATE reconcile_runs SET finished_at = ?, error = ? "
                                        "WHERE id = ? RETURNING {}",
                                        kReconcileRunColumns)));
    up.bind_all(clock_.now_ms(), error, run_id);
    HOOKD_TRY(found, up.step());
    if (!found) return fail(ErrorCode::kNotFound, "reconcile run " + run_id + " not found");
    ReconcileRun run = read_reconcile_run(up);
    HOOKD_CHECK(up.run());
    HOOKD_TRY(release, c.prepare("UPDATE reconcile_sources SET lease_owner = NULL, "
                                 "lease_until = NULL WHERE source = ? AND lease_owner = ?"));
    HOOKD_CHECK(release.bind_all(run.source, owner).run());
    return run;
  });
}

Result<ReconcileCursor> SqliteStore::reconcile_cursor(const std::string& source) {
  return read([&](Connection& c) -> Result<ReconcileCursor> {
    HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM reconcile_sources WHERE source = ?",
                                       kReconcileSourceColumns)));
    HOOKD_TRY(row, q.bind_all(source).step());
    if (!row) {
      ReconcileCursor fresh;
      fresh.source = source;
      return fresh;
    }
    return read_reconcile_cursor(q);
  });
}

Result<ReconcileRun> SqliteStore::reconcile_get_run(const std::string& id) {
  return read([&](Connection& c) { return load_run(c, id); });
}

Result<Page<ReconcileRun>> SqliteStore::reconcile_list_runs(
    const std::optional<std::string>& source, const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<ReconcileRun>> {
    Query q(fmt::format("SELECT {} FROM reconcile_runs", kReconcileRunColumns));
    if (source) q.where("source = ?", {*source});
    q.page(page);
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<ReconcileRun>(stmt, read_reconcile_run));
    return make_page(std::move(rows), page, [](const ReconcileRun& r) { return r.id; });
  });
}

Result<Difference> SqliteStore::reconcile_get_difference(const std::string& id) {
  return read([&](Connection& c) { return load_difference(c, id); });
}

Result<Page<Difference>> SqliteStore::reconcile_list_differences(const DifferenceFilter& filter,
                                                                 const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<Difference>> {
    Query q(fmt::format("SELECT {} FROM reconcile_differences", kDifferenceColumns));
    filter_differences(q, filter);
    q.page(page);
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<Difference>(stmt, read_difference));
    return make_page(std::move(rows), page, [](const Difference& d) { return d.id; });
  });
}

Result<std::vector<DifferenceActionRecord>> SqliteStore::reconcile_actions(
    const std::string& difference_id) {
  return read([&](Connection& c) -> Result<std::vector<DifferenceActionRecord>> {
    HOOKD_CHECK(load_difference(c, difference_id));
    HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM reconcile_actions WHERE difference_id = ? "
                                       "ORDER BY seq",
                                       kDifferenceActionColumns)));
    q.bind_all(difference_id);
    return collect<DifferenceActionRecord>(q, read_difference_action);
  });
}

// The parked event of difference `d` goes back to the queue, due now, with the header naming
// the dependencies it is forwarded without; kConflict when it is not parked any more.
Status SqliteStore::release_parked_in_tx(Connection& c, const Difference& d, Millis now) {
  const std::string event_id = d.event_id.value_or(d.subject);
  HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM inbox WHERE source = ? AND event_id = ?",
                                     kInboxColumns)));
  q.bind_all(d.source, event_id);
  HOOKD_TRY(ev, single<InboxEvent>(q, read_inbox, "inbox event " + event_id));
  if (ev.status != InboxStatus::kParked) {
    return fail(ErrorCode::kConflict,
                fmt::format("inbox event {} is {}, not parked", ev.id, to_string(ev.status)));
  }
  HOOKD_TRY(deps, c.prepare(kUnsettledSql));
  deps.bind_all(encode_list(ev.depends_on), d.source);
  HOOKD_TRY(unsettled, collect<std::string>(deps, [](const Stmt& s) { return s.text(0); }));
  HOOKD_TRY(up, c.prepare("UPDATE inbox SET status = 'received', next_attempt_at = ?, "
                          "headers = ?, lease_owner = NULL, lease_until = NULL "
                          "WHERE id = ? AND status = 'parked'"));
  HOOKD_CHECK(
      up.bind_all(now, encode_headers(released_headers(ev.headers, unsettled)), ev.id).run());
  HOOKD_TRY(hist, c.prepare("INSERT INTO inbox_history (inbox_id, at, from_status, to_status, "
                            "note) VALUES (?, ?, 'parked', 'received', ?)"));
  return hist.bind_all(ev.id, now, released_note(d.id)).run();
}

Result<Difference> SqliteStore::reconcile_act(const DifferenceAct& act) {
  return write([&](Connection& c) -> Result<Difference> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(before, load_difference(c, act.difference_id));
    HOOKD_TRY(plan, plan_act(before, act));
    std::optional<InboxEntity> entity_before;
    if (plan.entity) {
      HOOKD_TRY(found, find_entity(c, *plan.entity));
      entity_before = std::move(found);
      HOOKD_CHECK(set_entity(c, *plan.entity, now));
    }
    if (plan.insert_repair_event) {
      InboxEvent ev = repair_insert(before);
      HOOKD_CHECK(inbox_insert_in_tx(c, ev, now));
    }
    if (plan.release_parked) HOOKD_CHECK(release_parked_in_tx(c, before, now));
    const DifferenceActionRecord record = act_record(before, act, plan, entity_before, now);
    HOOKD_CHECK(append_action(c, record));
    Difference after = acted_difference(before, plan, now);
    HOOKD_TRY(up, c.prepare("UPDATE reconcile_differences SET state = ?, updated_at = ? "
                            "WHERE id = ?"));
    HOOKD_CHECK(up.bind_all(to_string(after.state), now, after.id).run());
    if (act.audit) {
      HOOKD_CHECK(
          append_audit_in_tx(c, difference_audit(*act.audit, before, after, record, plan), now));
    }
    return after;
  });
}

Result<std::vector<InboxEntity>> SqliteStore::reconcile_stuck_entities(const std::string& source,
                                                                       Millis updated_before,
                                                                       int limit) {
  return read([&](Connection& c) -> Result<std::vector<InboxEntity>> {
    HOOKD_TRY(q, c.prepare(fmt::format(
                     "SELECT {} FROM inbox_entities INDEXED BY inbox_entities_open "
                     "WHERE source = ? AND terminal = 0 AND state IS NOT NULL AND updated_at < ? "
                     "ORDER BY updated_at, entity_key LIMIT ?",
                     kInboxEntityColumns)));
    q.bind_all(source, updated_before, std::max(limit, 0));
    return collect<InboxEntity>(q, read_inbox_entity);
  });
}

Result<std::vector<InboxEvent>> SqliteStore::reconcile_timed_out_parked(const std::string& source,
                                                                        int limit) {
  return read([&](Connection& c) -> Result<std::vector<InboxEvent>> {
    HOOKD_TRY(q,
              c.prepare(fmt::format("SELECT {} FROM inbox INDEXED BY inbox_parked WHERE source = ? "
                                    "AND status = 'parked' AND last_error = 'park_timeout' "
                                    "ORDER BY received_at, id LIMIT ?",
                                    kInboxColumns)));
    q.bind_all(source, std::max(limit, 0));
    return collect<InboxEvent>(q, read_inbox);
  });
}

Result<std::vector<DifferenceStat>> SqliteStore::reconcile_stats() {
  return read([&](Connection& c) -> Result<std::vector<DifferenceStat>> {
    HOOKD_TRY(q, c.prepare("SELECT source, kind, state, COUNT(*), MIN(found_at) "
                           "FROM reconcile_differences GROUP BY source, kind, state "
                           "ORDER BY source, kind, state"));
    return collect<DifferenceStat>(q, read_difference_stat);
  });
}

}  // namespace hookd::store::sqlite
