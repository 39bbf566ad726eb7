// The per-entity ordering and causality decision for one claimed inbox event (SPEC §4.4),
// and the entity's state after an event was forwarded. Decided in this order:
//   1. depends_on not all settled               -> park (wait; reconciliation after a timeout)
//   2. entity terminal, event's state not one   -> superseded (never moves it back, A19)
//   3. sequence not newer than the last one     -> stale (acknowledged, not forwarded, A20)
//   4. business key already forwarded (guard)   -> duplicate business key (A11)
//   5. otherwise                                -> forward
// Pure: everything the decision needs is passed in. Thread-safety: stateless functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "inbound/source.hpp"
#include "store/model.hpp"

namespace hookd::inbound {

enum class Decision { kForward, kPark, kSuperseded, kStale, kDuplicateBusinessKey };

std::string_view to_string(Decision d);

struct DecisionInput {
  std::optional<std::int64_t> sequence;      // the event's
  std::optional<std::string> state;          // the event's
  std::optional<store::InboxEntity> entity;  // last known state of its entity, if any
  bool dependencies_settled = true;
  bool business_key_already_forwarded = false;  // only consulted with the guard on
};

struct DecisionResult {
  Decision decision = Decision::kForward;
  std::string note;  // one line for the history: why
};

DecisionResult decide(const Source& source, const DecisionInput& input);

// The entity after `input`'s event was forwarded: the highest sequence seen, the event's
// state (or the previous one when the event has none), terminal when that state is.
store::InboxEntity entity_after_forward(const Source& source, const std::string& entity_key,
                                        const DecisionInput& input);

}  // namespace hookd::inbound
