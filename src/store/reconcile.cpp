#include "store/reconcile.hpp"

#include <array>
#include <utility>

namespace hookd::store {
namespace {

constexpr std::array<std::pair<DifferenceKind, std::string_view>, 4> kKinds{{
    {DifferenceKind::kMissing, "missing"},
    {DifferenceKind::kStuck, "stuck"},
    {DifferenceKind::kStateMismatch, "state_mismatch"},
    {DifferenceKind::kParkedTimeout, "parked_timeout"},
}};

constexpr std::array<std::pair<DifferenceState, std::string_view>, 3> kStates{{
    {DifferenceState::kOpen, "open"},
    {DifferenceState::kRepaired, "repaired"},
    {DifferenceState::kResolved, "resolved"},
}};

constexpr std::array<std::pair<DifferenceAction, std::string_view>, 4> kActions{{
    {DifferenceAction::kRepair, "repair"},
    {DifferenceAction::kIgnore, "ignore"},
    {DifferenceAction::kCorrectState, "correct_state"},
    {DifferenceAction::kRelease, "release"},
}};

template <class E, std::size_t N>
std::string_view name_in(const std::array<std::pair<E, std::string_view>, N>& table, E v) {
  for (const auto& [e, name] : table) {
    if (e == v) return name;
  }
  return "unknown";
}

template <class E, std::size_t N>
std::optional<E> value_in(const std::array<std::pair<E, std::string_view>, N>& table,
                          std::string_view text) {
  for (const auto& [e, name] : table) {
    if (name == text) return e;
  }
  return std::nullopt;
}

std::unexpected<Error> not_built() {
  return fail(ErrorCode::kInternal, "reconciliation is not built for this store engine yet");
}

}  // namespace

std::string_view to_string(DifferenceKind k) { return name_in(kKinds, k); }
std::string_view to_string(DifferenceState s) { return name_in(kStates, s); }
std::string_view to_string(DifferenceAction a) { return name_in(kActions, a); }
std::optional<DifferenceKind> parse_difference_kind(std::string_view text) {
  return value_in(kKinds, text);
}
std::optional<DifferenceState> parse_difference_state(std::string_view text) {
  return value_in(kStates, text);
}
std::optional<DifferenceAction> parse_difference_action(std::string_view text) {
  return value_in(kActions, text);
}

Result<ReconcileStart> ReconcileStore::reconcile_begin(const std::string&, const std::string&,
                                                       Millis, const std::string&) {
  return not_built();
}

Result<ReconcilePageResult> ReconcileStore::reconcile_apply_page(const ReconcilePage&) {
  return not_built();
}

Result<std::vector<Difference>> ReconcileStore::reconcile_record(
    const std::vector<DifferenceFinding>&) {
  return not_built();
}

Result<ReconcileRun> ReconcileStore::reconcile_finish(const std::string&, const std::string&,
                                                      std::optional<std::string>) {
  return not_built();
}

Result<ReconcileCursor> ReconcileStore::reconcile_cursor(const std::string&) { return not_built(); }

Result<ReconcileRun> ReconcileStore::reconcile_get_run(const std::string&) { return not_built(); }

Result<Page<ReconcileRun>> ReconcileStore::reconcile_list_runs(const std::optional<std::string>&,
                                                               const PageRequest&) {
  return not_built();
}

Result<Difference> ReconcileStore::reconcile_get_difference(const std::string&) {
  return not_built();
}

Result<Page<Difference>> ReconcileStore::reconcile_list_differences(const DifferenceFilter&,
                                                                    const PageRequest&) {
  return not_built();
}

Result<std::vector<DifferenceActionRecord>> ReconcileStore::reconcile_actions(const std::string&) {
  return not_built();
}

Result<Difference> ReconcileStore::reconcile_act(const DifferenceAct&) { return not_built(); }

Result<std::vector<InboxEntity>> ReconcileStore::reconcile_stuck_entities(const std::string&,
                                                                          Millis, int) {
  return not_built();
}

Result<std::vector<InboxEvent>> ReconcileStore::reconcile_timed_out_parked(const std::string&,
                                                                           int) {
  return not_built();
}

Result<std::vector<DifferenceStat>> ReconcileStore::reconcile_stats() { return not_built(); }
}  // namespace hookd::store
