// The reconciler's rows as both engines write and read them (issue 15, docs/storage.md
// "Migration 8"): the column lists and row readers of its tables, the repair event's JSON
// (every field an inbox insert needs but the payload, which has its own byte-exact column),
// and what an action on a difference does (`plan_act`: the checks, the new state, the action
// record's before/after, the audit documents), so that each engine only runs the statements.
// Thread-safety: constants and pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "store/reconcile.hpp"
#include "store/row_codec.hpp"

namespace hookd::store {

inline constexpr std::string_view kReconcileSourceColumns =
    "source, cursor, watermark_at, lease_owner, lease_until";

inline constexpr std::string_view kReconcileRunColumns =
    "id, source, trigger, owner, started_at, finished_at, items_read, differences_found, "
    "repaired, error";

inline constexpr std::string_view kDifferenceColumns =
    "id, run_id, source, kind, subject, event_id, entity_key, local_state, remote_state, "
    "detail, evidence_request, evidence_status, evidence_excerpt, evidence_sha256, "
    "repair_event, repair_payload, state, found_at, updated_at";

inline constexpr std::string_view kDifferenceActionColumns =
    "difference_id, action, actor, reason, before, after, at";

// The repair event without its payload, as JSON text (source, event_id, business_key,
// entity_key, sequence, event_time, depends_on, headers); and back, with the payload.
std::string encode_repair_event(const InboxEvent& ev);
InboxEvent decode_repair_event(const std::string& json, std::string payload);

// A difference as the store records it: id, state and times assigned, the evidence excerpt
// cut at kMaxEvidenceExcerpt bytes.
Difference recorded_difference(Difference d, std::string id, DifferenceState state, Millis now);

// The `missing` difference a page's item not in the inbox makes (both engines): the item's
// difference completed from the page (run, source, the page's evidence when the item has
// none) with the item's event as its repair.
Difference missing_difference_of(const ReconcilePage& page, const ReconcileItem& item);

// The history notes of the reconciler's inserts and releases.
std::string reconciled_note(const std::string& difference_id);  // "reconciled: <id>"
std::string released_note(const std::string& difference_id);

// The event a repair of `d` inserts: its repair event, with the note "reconciled: <id>".
InboxEvent repair_insert(const Difference& d);

// The action `auto` appends when a difference is repaired as it is recorded.
DifferenceActionRecord auto_repair_record(const Difference& d, Millis now);

// The headers a released event carries: `headers` plus hookd-dependency-missing listing
// `unsettled` comma-separated (unchanged when none is unsettled any more).
Headers released_headers(Headers headers, const std::vector<std::string>& unsettled);

// What reconcile_act does to difference `d` (DifferenceAct): kConflict when an action that
// needs an open difference finds it repaired or resolved, kInvalidArgument when the action
// does not fit its kind. `entity` (correct_state) is the row to upsert, its source and key
// taken from the difference when empty.
struct ActPlan {
  DifferenceState to = DifferenceState::kOpen;
  bool insert_repair_event = false;   // repair of missing / state_mismatch
  bool release_parked = false;        // release, and repair of parked_timeout
  std::optional<InboxEntity> entity;  // correct_state
};
Result<ActPlan> plan_act(const Difference& d, const DifferenceAct& act);

// The action's record: before/after are the difference's states, for correct_state the
// entity's ("absent" when it had no row or no state).
DifferenceActionRecord act_record(const Difference& d, const DifferenceAct& act,
                                  const ActPlan& plan,
                                  const std::optional<InboxEntity>& entity_before, Millis now);

// The difference after the action.
Difference acted_difference(Difference d, const ActPlan& plan, Millis now);

// `audit` completed: target the difference when the entry names none (target_type
// "reconcile_difference"), and a missing before/after becomes the difference's JSON summary
// (id, source, kind, subject, state, event_id, entity_key, local_state, remote_state; for
// correct_state also entity_state) before and after.
AuditEntry difference_audit(AuditEntry audit, const Difference& before, const Difference& after,
                            const DifferenceActionRecord& record, const ActPlan& plan);

inline constexpr auto read_reconcile_cursor = [](const RowSource auto& s) {
  return ReconcileCursor{
      .source = s.text(0),
      .cursor = s.text(1),
      .watermark_at = s.opt_int64(2),
      .lease_owner = s.opt_text(3),
      .lease_until = s.opt_int64(4),
  };
};

inline constexpr auto read_reconcile_run = [](const RowSource auto& s) {
  return ReconcileRun{
      .id = s.text(0),
      .source = s.text(1),
      .trigger = s.text(2),
      .owner = s.text(3),
      .started_at = s.int64(4),
      .finished_at = s.opt_int64(5),
      .items_read = s.int64(6),
      .differences_found = s.int64(7),
      .repaired = s.int64(8),
      .error = s.opt_text(9),
  };
};

inline constexpr auto read_difference = [](const RowSource auto& s) {
  Difference d;
  d.id = s.text(0);
  d.run_id = s.text(1);
  d.source = s.text(2);
  d.kind = parse_difference_kind(s.text(3)).value_or(DifferenceKind::kMissing);
  d.subject = s.text(4);
  d.event_id = s.opt_text(5);
  d.entity_key = s.opt_text(6);
  d.local_state = s.opt_text(7);
  d.remote_state = s.opt_text(8);
  d.detail = s.text(9);
  d.evidence.request = s.text(10);
  d.evidence.status = s.opt_int64(11);
  d.evidence.excerpt = s.bytes(12);
  d.evidence.sha256 = s.text(13);
  if (auto json = s.opt_text(14)) d.repair_event = decode_repair_event(*json, s.bytes(15));
  d.state = parse_difference_state(s.text(16)).value_or(DifferenceState::kOpen);
  d.found_at = s.int64(17);
  d.updated_at = s.int64(18);
  return d;
};

inline constexpr auto read_difference_action = [](const RowSource auto& s) {
  return DifferenceActionRecord{
      .difference_id = s.text(0),
      .action = parse_difference_action(s.text(1)).value_or(DifferenceAction::kIgnore),
      .by = s.text(2),
      .reason = s.text(3),
      .before = s.text(4),
      .after = s.text(5),
      .at = s.int64(6),
  };
};

inline constexpr auto read_difference_stat = [](const RowSource auto& s) {
  return DifferenceStat{
      .source = s.text(0),
      .kind = parse_difference_kind(s.text(1)).value_or(DifferenceKind::kMissing),
      .state = parse_difference_state(s.text(2)).value_or(DifferenceState::kOpen),
      .count = s.int64(3),
      .oldest_found_at = s.int64(4),
  };
};

}  // namespace hookd::store
