// The run's steps after the feed walk (docs/reconciliation.md "A run" 5 and the parked
// hand-off): the stuck check against status_url and the release of parked events past
// park_timeout. Each returns the error the run stops with, or nullopt.
// Thread-safety: called on the run's thread only; the deps are thread-safe.
#pragma once

#include <optional>
#include <string>

#include "reconcile/reconcile_options.hpp"
#include "reconcile/reconciler.hpp"

namespace hookd::reconcile {

// The synthesized repair event of a state mismatch: event id "reconcile:<entity>:<state>",
// payload a JSON object with the entity key at the source's entity pointer and the state at
// its state pointer (e.g. {"entity":"e1","state":"completed"} for /entity and /state).
store::InboxEvent synthesized_state_event(const inbound::Source& source,
                                          const std::string& entity_key, const std::string& state);

// Entities non-terminal past stuck_after, asked at status_url: another remote state is a
// state_mismatch difference (repaired only when terminal and repair = auto). A failed status
// call skips that entity only; the first failure (with a count of the others) is returned
// after the rest were checked and recorded.
std::optional<std::string> check_stuck(const ReconcileOptions& options, ReconcilerDeps& deps,
                                       const std::string& run_id);

// Parked events past park_timeout: their parked_timeout difference (recorded when missing)
// gets a `release` by "auto" while it is open.
std::optional<std::string> hand_off_parked(const ReconcileOptions& options, ReconcilerDeps& deps,
                                           const std::string& run_id);

}  // namespace hookd::reconcile
