// The reconciler's store on PostgreSQL (ReconcileStore, docs/reconciliation.md), with the
// SQLite engine's semantics (sqlite_reconcile.cpp) for several nodes on one database: the
// source's lease is taken by one conditional upsert (ON CONFLICT DO UPDATE ... WHERE free:
// the row is locked and the condition re-read on its newest version, so of nodes racing for
// it exactly one wins and the others see its lease), and every later write of a run
// (a page, its cursor) is guarded by the lease in the same transaction. Differences are
// recorded once per (source, kind, subject) (ON CONFLICT DO NOTHING), repaired through the
// webhook's dedup insert; a person's action locks its difference (FOR UPDATE), so two nodes
// acting at once apply it once. Every method is one transaction on a pooled connection (or
// a read).
#include <fmt/format.h>

#include <algorithm>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/postgres/pg_query.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"
#include "store/reconcile_codec.hpp"

namespace hookd::store::postgres {
namespace {

// The lease is free when nobody holds it or it ran out ($4 now); its holder may take it
// again. No row comes back when another owner holds it.
constexpr std::string_view kTakeLeaseSql = R"sql(
INSERT INTO reconcile_sources (source, lease_owner, lease_until) VALUES ($1, $2, $3)
ON CONFLICT (source) DO UPDATE SET lease_owner = excluded.lease_owner,
  lease_until = excluded.lease_until
WHERE reconcile_sources.lease_owner IS NULL OR reconcile_sources.lease_until IS NULL
   OR reconcile_sources.lease_until <= $4 OR reconcile_sources.lease_owner = $2
RETURNING {})sql";

// A page's end, only while owner $2 holds the lease at $3 (renewed when $4 > 0): the cursor
// $5 and the watermark $6 (NULL: unchanged). The row stays locked to the commit.
constexpr std::string_view kPageLeaseSql = R"sql(
UPDATE reconcile_sources SET cursor = $5, watermark_at = COALESCE($6::bigint, watermark_at),
  lease_until = CASE WHEN $4::bigint > 0 THEN $3::bigint + $4::bigint ELSE lease_until END
WHERE source = $1 AND lease_owner = $2 AND lease_until > $3::bigint)sql";

constexpr std::string_view kRunCountsSql = R"sql(
UPDATE reconcile_runs SET items_read = items_read + $1,
  differences_found = differences_found + $2, repaired = repaired + $3
WHERE id = $4 AND source = COALESCE($5::text, source))sql";

constexpr std::string_view kInsertDifferenceSql = R"sql(
INSERT INTO reconcile_differences ({})
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18)
ON CONFLICT (source, kind, subject) DO NOTHING)sql";

// A parked event's dependencies that have not settled, in their order ($1 its depends_on).
constexpr std::string_view kUnsettledSql = R"sql(
SELECT d.value FROM json_array_elements_text($1::json) WITH ORDINALITY AS d(value, ord)
WHERE NOT EXISTS (SELECT 1 FROM inbox s WHERE s.source = $2 AND s.event_id = d.value
  AND s.status IN ('processed', 'stale', 'superseded', 'duplicate-business-key'))
ORDER BY d.ord)sql";

// A person sets the entity's state: written as given (not the forwarder's guarded upsert).
constexpr std::string_view kSetEntitySql = R"sql(
INSERT INTO inbox_entities (source, entity_key, last_sequence, state, terminal, updated_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (source, entity_key) DO UPDATE SET
  last_sequence = COALESCE(excluded.last_sequence, inbox_entities.last_sequence),
  state = excluded.state, terminal = excluded.terminal, updated_at = excluded.updated_at)sql";

Status append_action(PgConnection& c, const DifferenceActionRecord& r) {
  HOOKD_CHECK(c.query(fmt::format("INSERT INTO reconcile_actions ({}) VALUES ({})",
                                  kDifferenceActionColumns, placeholders(7)),
                      Params().add_all(r.difference_id, to_string(r.action), r.by, r.reason,
                                       r.before, r.after, r.at)));
  return {};
}

// `lock`: FOR UPDATE, so that an action waits for another one on the same difference and
// then sees its outcome.
Result<Difference> load_difference(PgConnection& c, const std::string& id, bool lock = false) {
  HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM reconcile_differences WHERE id = $1{}",
                                      kDifferenceColumns, lock ? " FOR UPDATE" : ""),
                          Params().add(id)));
  return single<Difference>(rows, read_difference, "difference " + id);
}

Result<ReconcileRun> load_run(PgConnection& c, const std::string& id) {
  HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM reconcile_runs WHERE id = $1",
                                      kReconcileRunColumns),
                          Params().add(id)));
  return single<ReconcileRun>(rows, read_reconcile_run, "reconcile run " + id);
}

Result<bool> in_inbox(PgConnection& c, const std::string& source, const std::string& event_id) {
  HOOKD_TRY(rows, c.query("SELECT 1 FROM inbox WHERE source = $1 AND event_id = $2",
                          Params().add_all(source, event_id)));
  return rows.size() > 0;
}

Result<std::optional<InboxEntity>> find_entity(PgConnection& c, const InboxEntity& key) {
  HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM inbox_entities WHERE source = $1 AND "
                                      "entity_key = $2 FOR UPDATE",
                                      kInboxEntityColumns),
                          Params().add_all(key.source, key.entity_key)));
  if (rows.size() == 0) return std::optional<InboxEntity>{};
  return std::optional<InboxEntity>(read_inbox_entity(Row{rows, 0}));
}

Status set_entity(PgConnection& c, const InboxEntity& e, Millis now) {
  HOOKD_CHECK(c.query(kSetEntitySql, Params().add_all(e.source, e.entity_key, e.last_sequence,
                                                      e.state, e.terminal, now)));
  return {};
}

Status add_run_counts(PgConnection& c, std::int64_t items, std::int64_t found,
                      std::int64_t repaired, const std::string& run_id,
                      const std::optional<std::string>& source) {
  HOOKD_TRY(rows, c.query(kRunCountsSql, Params().add_all(items, found, repaired, run_id, source)));
  if (rows.affected() == 0) {
    return fail(ErrorCode::kNotFound, "reconcile run " + run_id + " not found");
  }
  return {};
}

}  // namespace

Result<bool> PgStore::record_difference_in_tx(PgConnection& c, Difference& d, bool repair,
                                              Millis now) {
  const bool repairs = repair && d.repair_event.has_value();
  d = recorded_difference(std::move(d), ids_.next(id_prefix::kDifference),
                          repairs ? DifferenceState::kRepaired : DifferenceState::kOpen, now);
  Params p;
  p.add_all(d.id, d.run_id, d.source, to_string(d.kind), d.subject, d.event_id, d.entity_key,
            d.local_state, d.remote_state, d.detail, d.evidence.request, d.evidence.status);
  p.add_bytes(d.evidence.excerpt).add(d.evidence.sha256);
  if (d.repair_event) {
    p.add(encode_repair_event(*d.repair_event)).add_bytes(d.repair_event->payload);
  } else {
    p.add(std::nullopt).add_bytes("");
  }
  p.add_all(to_string(d.state), now);
  HOOKD_TRY(ins, c.query(fmt::format(kInsertDifferenceSql, kDifferenceColumns), p));
  if (ins.affected() == 0) return false;
  if (repairs) {
    HOOKD_CHECK(inbox_insert_in_tx(c, repair_insert(d), now));
    HOOKD_CHECK(append_action(c, auto_repair_record(d, now)));
  }
  return true;
}

Result<ReconcileStart> PgStore::reconcile_begin(const std::string& source, const std::string& owner,
                                                Millis lease_ms, const std::string& trigger) {
  return write([&](PgConnection& c) -> Result<ReconcileStart> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(taken, c.query(fmt::format(kTakeLeaseSql, kReconcileSourceColumns),
                             Params().add_all(source, owner, now + lease_ms, now)));
    if (taken.size() == 0) {
      return fail(ErrorCode::kConflict, "a reconcile run of " + source + " is in progress");
    }
    ReconcileStart start;
    start.cursor = read_reconcile_cursor(Row{taken, 0});
    // Whoever held the lease before is gone (it ran out, or this owner restarted after a
    // crash): its run rows would read "running" forever.
    HOOKD_CHECK(
        c.query("UPDATE reconcile_runs SET finished_at = $1, error = $2 "
                "WHERE source = $3 AND finished_at IS NULL",
                Params().add_all(now, std::string(kInterruptedRunError), source)));
    start.run.id = ids_.next(id_prefix::kReconcileRun);
    start.run.source = source;
    start.run.trigger = trigger;
    start.run.owner = owner;
    start.run.started_at = now;
    HOOKD_CHECK(
        c.query("INSERT INTO reconcile_runs (id, source, trigger, owner, started_at) "
                "VALUES ($1, $2, $3, $4, $5)",
                Params().add_all(start.run.id, source, trigger, owner, now)));
    return start;
  });
}

// Committed without waiting for the WAL flush (as the SQLite engine's write_relaxed): the
// page's differences, inserts, counts and the cursor that moves past them are one
// transaction, so what a database crash may lose is whole pages, and the next run reads them
// again from the older cursor (the dedup makes that harmless; an event forwarded meanwhile is
// forwarded again: at least once). The next durable commit flushes it anyway.
Result<ReconcilePageResult> PgStore::reconcile_apply_page(const ReconcilePage& page) {
  return write(
      [&](PgConnection& c) -> Result<ReconcilePageResult> {
        const Millis now = clock_.now_ms();
        HOOKD_TRY(lease, c.query(kPageLeaseSql,
                                 Params().add_all(page.source, page.lease_owner, now, page.lease_ms,
                                                  page.next_cursor, page.watermark_at)));
        if (lease.affected() == 0) {
          return fail(ErrorCode::kConflict, "the reconcile lease of " + page.source +
                                                " is not held by " + page.lease_owner);
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
        HOOKD_CHECK(add_run_counts(c, static_cast<std::int64_t>(page.items.size()),
                                   static_cast<std::int64_t>(out.recorded.size()), out.repaired,
                                   page.run_id, page.source));
        return out;
      },
      /*durable=*/false);
}

Result<std::vector<Difference>> PgStore::reconcile_record(
    const std::vector<DifferenceFinding>& findings) {
  return write([&](PgConnection& c) -> Result<std::vector<Difference>> {
    const Millis now = clock_.now_ms();
    std::vector<Difference> out;
    for (const auto& f : findings) {
      Difference d = f.difference;
      HOOKD_TRY(recorded, record_difference_in_tx(c, d, f.repair, now));
      if (!recorded) continue;
      if (!d.run_id.empty()) {
        const std::int64_t repaired = d.state == DifferenceState::kRepaired ? 1 : 0;
        HOOKD_CHECK(
            c.query(kRunCountsSql, Params().add_all(0, 1, repaired, d.run_id, std::nullopt)));
      }
      out.push_back(std::move(d));
    }
    return out;
  });
}

Result<ReconcileRun> PgStore::reconcile_finish(const std::string& run_id, const std::string& owner,
                                               std::optional<std::string> error) {
  return write([&](PgConnection& c) -> Result<ReconcileRun> {
    HOOKD_TRY(rows, c.query(fmt::format("UPDATE reconcile_runs SET finished_at = $1, error = $2 "
                                        "WHERE id = $3 RETURNING {}",
                                        kReconcileRunColumns),
                            Params().add_all(clock_.now_ms(), error, run_id)));
    HOOKD_TRY(run, single<ReconcileRun>(rows, read_reconcile_run, "reconcile run " + run_id));
    HOOKD_CHECK(
        c.query("UPDATE reconcile_sources SET lease_owner = NULL, lease_until = NULL "
                "WHERE source = $1 AND lease_owner = $2",
                Params().add_all(run.source, owner)));
    return run;
  });
}

Result<ReconcileCursor> PgStore::reconcile_cursor(const std::string& source) {
  return read([&](PgConnection& c) -> Result<ReconcileCursor> {
    HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM reconcile_sources WHERE source = $1",
                                        kReconcileSourceColumns),
                            Params().add(source)));
    if (rows.size() == 0) {
      ReconcileCursor fresh;
      fresh.source = source;
      return fresh;
    }
    return read_reconcile_cursor(Row{rows, 0});
  });
}

Result<ReconcileRun> PgStore::reconcile_get_run(const std::string& id) {
  return read([&](PgConnection& c) { return load_run(c, id); });
}

Result<Page<ReconcileRun>> PgStore::reconcile_list_runs(const std::optional<std::string>& source,
                                                        const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<ReconcileRun>> {
    PgQuery q(fmt::format("SELECT {} FROM reconcile_runs", kReconcileRunColumns));
    if (source) q.where("source = ?", {*source});
    q.page(page);
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<ReconcileRun>(rows, read_reconcile_run), page,
                     [](const ReconcileRun& r) { return r.id; });
  });
}

Result<Difference> PgStore::reconcile_get_difference(const std::string& id) {
  return read([&](PgConnection& c) { return load_difference(c, id); });
}

Result<Page<Difference>> PgStore::reconcile_list_differences(const DifferenceFilter& filter,
                                                             const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<Difference>> {
    PgQuery q(fmt::format("SELECT {} FROM reconcile_differences", kDifferenceColumns));
    filter_differences(q, filter);
    q.page(page);
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<Difference>(rows, read_difference), page,
                     [](const Difference& d) { return d.id; });
  });
}

Result<std::vector<DifferenceActionRecord>> PgStore::reconcile_actions(
    const std::string& difference_id) {
  return read([&](PgConnection& c) -> Result<std::vector<DifferenceActionRecord>> {
    HOOKD_CHECK(load_difference(c, difference_id));
    HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM reconcile_actions WHERE difference_id = "
                                        "$1 ORDER BY seq",
                                        kDifferenceActionColumns),
                            Params().add(difference_id)));
    return collect<DifferenceActionRecord>(rows, read_difference_action);
  });
}

// The parked event of difference `d` goes back to the queue, due now, with the header naming
// the dependencies it is forwarded without; kConflict when it is not parked any more (the
// row is locked: a claim that took it first has committed, one after waits for this).
Status PgStore::release_parked_in_tx(PgConnection& c, const Difference& d, Millis now) {
  const std::string event_id = d.event_id.value_or(d.subject);
  HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM inbox WHERE source = $1 AND event_id = $2 "
                                      "FOR UPDATE",
                                      kInboxColumns),
                          Params().add_all(d.source, event_id)));
  HOOKD_TRY(ev, single<InboxEvent>(rows, read_inbox, "inbox event " + event_id));
  if (ev.status != InboxStatus::kParked) {
    return fail(ErrorCode::kConflict,
                fmt::format("inbox event {} is {}, not parked", ev.id, to_string(ev.status)));
  }
  HOOKD_TRY(deps, c.query(kUnsettledSql, Params().add_all(encode_list(ev.depends_on), d.source)));
  std::vector<std::string> unsettled;
  for (int i = 0; i < deps.size(); ++i) unsettled.push_back(deps.text(i, 0));
  HOOKD_CHECK(c.query(
      "UPDATE inbox SET status = 'received', next_attempt_at = $1, headers = $2, "
      "lease_owner = NULL, lease_until = NULL WHERE id = $3 AND status = 'parked'",
      Params().add_all(now, encode_headers(released_headers(ev.headers, unsettled)), ev.id)));
  HOOKD_CHECK(
      c.query("INSERT INTO inbox_history (inbox_id, at, from_status, to_status, note) "
              "VALUES ($1, $2, 'parked', 'received', $3)",
              Params().add_all(ev.id, now, released_note(d.id))));
  return {};
}

Result<Difference> PgStore::reconcile_act(const DifferenceAct& act) {
  return write([&](PgConnection& c) -> Result<Difference> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(before, load_difference(c, act.difference_id, /*lock=*/true));
    HOOKD_TRY(plan, plan_act(before, act));
    std::optional<InboxEntity> entity_before;
    if (plan.entity) {
      HOOKD_TRY(found, find_entity(c, *plan.entity));
      entity_before = std::move(found);
      HOOKD_CHECK(set_entity(c, *plan.entity, now));
    }
    if (plan.insert_repair_event) HOOKD_CHECK(inbox_insert_in_tx(c, repair_insert(before), now));
    if (plan.release_parked) HOOKD_CHECK(release_parked_in_tx(c, before, now));
    const DifferenceActionRecord record = act_record(before, act, plan, entity_before, now);
    HOOKD_CHECK(append_action(c, record));
    Difference after = acted_difference(before, plan, now);
    HOOKD_CHECK(
        c.query("UPDATE reconcile_differences SET state = $1, updated_at = $2 "
                "WHERE id = $3",
                Params().add_all(to_string(after.state), now, after.id)));
    if (act.audit) {
      HOOKD_CHECK(
          append_audit_in_tx(c, difference_audit(*act.audit, before, after, record, plan), now));
    }
    return after;
  });
}

Result<std::vector<InboxEntity>> PgStore::reconcile_stuck_entities(const std::string& source,
                                                                   Millis updated_before,
                                                                   int limit) {
  return read([&](PgConnection& c) -> Result<std::vector<InboxEntity>> {
    HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM inbox_entities WHERE source = $1 "
                                        "AND NOT terminal AND state IS NOT NULL "
                                        "AND updated_at < $2 ORDER BY updated_at, entity_key "
                                        "LIMIT $3",
                                        kInboxEntityColumns),
                            Params().add_all(source, updated_before, std::max(limit, 0))));
    return collect<InboxEntity>(rows, read_inbox_entity);
  });
}

Result<std::vector<InboxEvent>> PgStore::reconcile_timed_out_parked(const std::string& source,
                                                                    int limit) {
  return read([&](PgConnection& c) -> Result<std::vector<InboxEvent>> {
    HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM inbox WHERE source = $1 "
                                        "AND status = 'parked' AND last_error = 'park_timeout' "
                                        "ORDER BY received_at, id LIMIT $2",
                                        kInboxColumns),
                            Params().add_all(source, std::max(limit, 0))));
    return collect<InboxEvent>(rows, read_inbox);
  });
}

Result<std::vector<DifferenceStat>> PgStore::reconcile_stats() {
  return read([&](PgConnection& c) -> Result<std::vector<DifferenceStat>> {
    HOOKD_TRY(rows, c.query("SELECT source, kind, state, COUNT(*), MIN(found_at) "
                            "FROM reconcile_differences GROUP BY source, kind, state "
                            "ORDER BY source, kind, state"));
    return collect<DifferenceStat>(rows, read_difference_stat);
  });
}

}  // namespace hookd::store::postgres
