// ReconcilePort: what the API asks of the reconcilers (issue 15, docs/reconciliation.md): start
// a run of one source now, and apply a person's action on a difference (the reconciler knows
// the source's terminal states and what a repair means). The composition root implements it
// over the configured sources' reconcilers; without any [source.reconcile] the API has none
// and answers those routes 404.
// Thread-safety: implementations must be safe to call from any thread.
#pragma once

#include <optional>
#include <string>

#include "hookd/result.hpp"
#include "store/store.hpp"

namespace hookd::api {

struct DifferenceResolution {
  store::DifferenceAction action = store::DifferenceAction::kRepair;  // repair|ignore|correct_state
  std::optional<std::string> state;  // correct_state: the entity's state from now on
  std::string reason;                // required, kept with the action
  store::AuditEntry audit;           // who and from where (actor, action, target); the store
                                     // fills before/after
};

class ReconcilePort {
 public:
  virtual ~ReconcilePort() = default;
  // Takes the source's lease and starts a run in the background; returns the run as opened.
  // kNotFound: no source of that name has [source.reconcile]; kConflict: a run is in progress
  // (on this node or another).
  virtual Result<store::ReconcileRun> start_run(const std::string& source,
                                                const std::string& trigger) = 0;
  // kNotFound: no such difference; kConflict: it is not open; kInvalidArgument: the action
  // does not fit the difference (repair of a stuck entity, correct_state without a state).
  virtual Result<store::Difference> resolve(const std::string& difference_id,
                                            const DifferenceResolution& resolution) = 0;
};

}  // namespace hookd::api
