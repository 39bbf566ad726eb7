#include "inbound/ordering.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace hookd::inbound {

std::string_view to_string(Decision d) {
  switch (d) {
    case Decision::kForward:
      return "forward";
    case Decision::kPark:
      return "parked";
    case Decision::kSuperseded:
      return "superseded";
    case Decision::kStale:
      return "stale";
    case Decision::kDuplicateBusinessKey:
      return "duplicate-business-key";
  }
  return "forward";
}

DecisionResult decide(const Source& source, const DecisionInput& in) {
  if (!in.dependencies_settled) {
    return {Decision::kPark, "waiting for depends_on to be processed"};
  }
  const auto& entity = in.entity;
  if (entity && entity->terminal && !(in.state && source.is_terminal(*in.state))) {
    return {Decision::kSuperseded,
            fmt::format("entity already in terminal state \"{}\"; event state \"{}\" ignored",
                        entity->state.value_or(""), in.state.value_or(""))};
  }
  if (entity && entity->last_sequence && in.sequence && *in.sequence <= *entity->last_sequence) {
    return {Decision::kStale, fmt::format("sequence {} not newer than last processed {}",
                                          *in.sequence, *entity->last_sequence)};
  }
  if (source.settings.business_key_guard && in.business_key_already_forwarded) {
    return {Decision::kDuplicateBusinessKey, "business key already forwarded successfully"};
  }
  return {Decision::kForward, ""};
}

store::InboxEntity entity_after_forward(const Source& source, const std::string& entity_key,
                                        const DecisionInput& in) {
  store::InboxEntity e;
  e.source = source.name();
  e.entity_key = entity_key;
  if (in.entity) e = *in.entity;
  if (in.sequence) {
    e.last_sequence = e.last_sequence ? std::max(*e.last_sequence, *in.sequence) : *in.sequence;
  }
  if (in.state) {
    e.state = in.state;
    e.terminal = source.is_terminal(*in.state);
  }
  return e;
}

}  // namespace hookd::inbound
