// The reconciler's records and its store aggregate (issue 15, docs/reconciliation.md):
// per-source run state (cursor, watermark, one run at a time across nodes by a lease), runs,
// differences (append-only, unique per subject) and the actions taken on them (append-only;
// a difference's state is derived from its latest action).
// Thread-safety: plain values; ReconcileStore implementations are safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "store/model.hpp"
#include "store/paging.hpp"

namespace hookd::store {

enum class DifferenceKind {
  kMissing,        // an item of the provider's feed that hookd never received
  kStuck,          // an entity non-terminal past stuck_after; the provider says the same state
  kStateMismatch,  // the provider's status answer says another state than hookd's
  kParkedTimeout,  // a parked event waited past park_timeout for its dependency (A21)
};

// hookd's own model of a difference (never a provider's code, SPEC §6): open until an action
// repairs or resolves it.
enum class DifferenceState { kOpen, kRepaired, kResolved };

enum class DifferenceAction {
  kRepair,        // the fix went through the normal path -> repaired
  kIgnore,        // a person decided nothing is to be done -> resolved
  kCorrectState,  // a person set the entity's local state -> resolved
  kRelease,       // a parked event was forwarded without its dependency; state unchanged
};

std::string_view to_string(DifferenceKind k);
std::string_view to_string(DifferenceState s);
std::string_view to_string(DifferenceAction a);
std::optional<DifferenceKind> parse_difference_kind(std::string_view text);
std::optional<DifferenceState> parse_difference_state(std::string_view text);
std::optional<DifferenceAction> parse_difference_action(std::string_view text);

// What hookd saw: the request it made (never a token) and the answer (or the feed item).
struct Evidence {
  std::string request;                 // e.g. "GET http://127.0.0.1:9/feed?iterator=abc"
  std::optional<std::int64_t> status;  // the answer's HTTP status, when there was one
  std::string excerpt;                 // the first kMaxEvidenceExcerpt bytes of the answer
  std::string sha256;                  // hex SHA-256 of the whole answer
};

inline constexpr std::size_t kMaxEvidenceExcerpt = 4096;

// The stored header of a parked event released without its dependency (DifferenceAct
// release): the forwarder then forwards it, and the app sees which ids are missing.
inline constexpr std::string_view kDependencyMissingHeader = "hookd-dependency-missing";
// The error of a run whose node stopped holding the lease before it closed the run.
inline constexpr std::string_view kInterruptedRunError =
    "interrupted: its node stopped (or lost the lease) before closing it";

struct Difference {
  std::string id;      // "rcd_..." (assigned by the store)
  std::string run_id;  // "" when found outside a run (the forwarder's park timeout)
  std::string source;
  DifferenceKind kind = DifferenceKind::kMissing;
  // The unique key within (source, kind): the event id (missing, parked_timeout), the entity
  // key (stuck) or "<entity key>\n<remote state>" (state_mismatch). A second run that finds
  // the same thing records nothing.
  std::string subject;
  std::optional<std::string> event_id;
  std::optional<std::string> entity_key;
  std::optional<std::string> local_state;   // hookd's, e.g. "pending" / "parked" / "absent"
  std::optional<std::string> remote_state;  // the provider's, as read at status_state
  std::string detail;                       // one line for a person: what was found
  Evidence evidence;
  // What a repair inserts through the normal inbound path (missing: the feed item;
  // state_mismatch: the synthesized event); nullopt for stuck and parked_timeout. Kept so a
  // person can repair later (repair = "manual").
  std::optional<InboxEvent> repair_event;
  DifferenceState state = DifferenceState::kOpen;  // derived from the latest action
  Millis found_at = 0;                             // assigned by the store
  Millis updated_at = 0;                           // the latest action's time (or found_at)
};

struct DifferenceActionRecord {
  std::string difference_id;
  DifferenceAction action = DifferenceAction::kRepair;
  std::string by;      // "auto" or the operator (token name)
  std::string reason;  // a person's reason, or what the automatic action did
  std::string before;  // the difference's state before, and for correct_state the entity's
  std::string after;
  Millis at = 0;  // assigned by the store
};

// Per source: where the next run starts, and who runs now.
struct ReconcileCursor {
  std::string source;
  std::string cursor;                      // the feed's next cursor ("" = from the watermark)
  std::optional<Millis> watermark_at;      // the newest item time stored so far
  std::optional<std::string> lease_owner;  // a run is in progress while lease_until > now
  std::optional<Millis> lease_until;
};

struct ReconcileRun {
  std::string id;  // "rcr_..."
  std::string source;
  std::string trigger;  // "interval" | "api" | "cli"
  std::string owner;    // the lease owner that ran it ("<node>/reconcile")
  Millis started_at = 0;
  std::optional<Millis> finished_at;  // nullopt while running (or when its runner died)
  std::int64_t items_read = 0;
  std::int64_t differences_found = 0;
  std::int64_t repaired = 0;
  std::optional<std::string> error;  // why the run stopped early
};

struct ReconcileStart {
  ReconcileRun run;
  ReconcileCursor cursor;  // as it was when the lease was taken
};

// One feed item: the event the webhook path would have stored, and the difference to record
// when hookd does not have it (kind missing, subject = the event id, evidence filled).
struct ReconcileItem {
  InboxEvent event;
  Difference difference;
};

// One page of a run, applied in ONE transaction while `lease_owner` holds the source's lease
// (else kConflict, nothing kept): for each item whose (source, event id) is not in the inbox
// and whose difference is not recorded yet, record the difference; with `repair`, insert the
// event too (history note "reconciled: <difference id>", ON CONFLICT DO NOTHING as the webhook
// path) and append a `repair` action by "auto". Then store `next_cursor` / `watermark_at` and
// add the page's counts to the run.
struct ReconcilePage {
  std::string source;
  std::string run_id;
  std::string lease_owner;
  std::vector<ReconcileItem> items;
  bool repair = true;
  std::string next_cursor;
  std::optional<Millis> watermark_at;  // nullopt = unchanged
  Millis lease_ms = 0;                 // > 0: the lease is renewed to now + lease_ms
  // The page's request and answer: the evidence of every item whose difference carries none
  // (one copy per page rather than a 4 KiB excerpt per item).
  Evidence evidence;
};

struct ReconcilePageResult {
  std::vector<Difference> recorded;  // the new differences (with ids), in item order
  std::int64_t repaired = 0;
};

// One difference found outside a feed page (stuck, state_mismatch, parked_timeout): recorded
// unless its (source, kind, subject) is already recorded. With `repair` and a repair_event,
// the event is inserted and a `repair` action by "auto" appended, in the same transaction.
struct DifferenceFinding {
  Difference difference;
  bool repair = false;
};

struct DifferenceFilter {
  std::optional<std::string> source;
  std::optional<DifferenceState> state;
  std::optional<DifferenceKind> kind;
};

// A person's (or the reconciler's) action on one difference, applied in one transaction with
// its effect and the audit entry. Only an open difference takes repair / ignore /
// correct_state (else kConflict). Effects:
//   repair:        missing / state_mismatch: insert repair_event (a duplicate is fine: the
//                  event arrived meanwhile); parked_timeout: release the parked event (below);
//                  stuck: kInvalidArgument (nothing to insert; correct_state or ignore).
//   ignore:        none.
//   correct_state: the entity's row is upserted to `entity` (state, terminal); before/after
//                  name the entity's state.
//   release:       parked_timeout only: the parked event gets the header
//                  `hookd-dependency-missing: <its unsettled depends_on ids, comma-separated>`,
//                  status received, due now (history note says so); the state stays open.
struct DifferenceAct {
  std::string difference_id;
  DifferenceAction action = DifferenceAction::kRepair;
  std::string by;
  std::string reason;
  std::optional<InboxEntity> entity;  // correct_state only
  std::optional<AuditEntry> audit;    // appended in the same transaction
};

struct DifferenceStat {
  std::string source;
  DifferenceKind kind = DifferenceKind::kMissing;
  DifferenceState state = DifferenceState::kOpen;
  std::int64_t count = 0;
  Millis oldest_found_at = 0;
};

class ReconcileStore {
 public:
  virtual ~ReconcileStore() = default;
  // Not pure while the engines are being written (issue 15): each default fails kInternal.
  // Takes the source's lease (row created on first use) when it is free, ran out or is held
  // by `owner` itself (a restart after a crash), closes the runs its earlier holders left open
  // (error kInterruptedRunError) and opens a run row; kConflict when another owner holds it.
  virtual Result<ReconcileStart> reconcile_begin(const std::string& source,
                                                 const std::string& owner, Millis lease_ms,
                                                 const std::string& trigger);
  virtual Result<ReconcilePageResult> reconcile_apply_page(const ReconcilePage& page);
  // Records each finding as described there; returns the newly recorded ones (with ids).
  virtual Result<std::vector<Difference>> reconcile_record(
      const std::vector<DifferenceFinding>& findings);
  // Closes the run (finished_at, error) and releases the lease if `owner` holds it.
  virtual Result<ReconcileRun> reconcile_finish(const std::string& run_id, const std::string& owner,
                                                std::optional<std::string> error);
  virtual Result<ReconcileCursor> reconcile_cursor(const std::string& source);
  virtual Result<ReconcileRun> reconcile_get_run(const std::string& id);
  // Newest first.
  virtual Result<Page<ReconcileRun>> reconcile_list_runs(const std::optional<std::string>& source,
                                                         const PageRequest& page);
  virtual Result<Difference> reconcile_get_difference(const std::string& id);
  // Newest first.
  virtual Result<Page<Difference>> reconcile_list_differences(const DifferenceFilter& filter,
                                                              const PageRequest& page);
  // Oldest first.
  virtual Result<std::vector<DifferenceActionRecord>> reconcile_actions(
      const std::string& difference_id);
  // See DifferenceAct. Returns the difference after the action.
  virtual Result<Difference> reconcile_act(const DifferenceAct& act);
  // Entities of `source` in a non-terminal state whose updated_at < updated_before, oldest
  // first, at most `limit`.
  virtual Result<std::vector<InboxEntity>> reconcile_stuck_entities(const std::string& source,
                                                                    Millis updated_before,
                                                                    int limit);
  // Parked events of `source` that passed park_timeout (last_error "park_timeout"), oldest
  // first, at most `limit`.
  virtual Result<std::vector<InboxEvent>> reconcile_timed_out_parked(const std::string& source,
                                                                     int limit);
  // Counts per (source, kind, state) and the oldest found_at of each group (metrics).
  virtual Result<std::vector<DifferenceStat>> reconcile_stats();
};

}  // namespace hookd::store
