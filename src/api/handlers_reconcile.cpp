// The reconcilers under /api/v1/hookd/reconcile (docs/reconciliation.md): start a run of one
// source now (`POST /{source}/run`, 202 with the run as opened), list and show runs and
// differences (newest first, read straight from the store), and let a person resolve an open
// difference (`POST /differences/{id}/resolve {"action", "state"?, "reason"}`, audited). The
// two actions go through ApiDeps::reconcile; without one they answer 404 "no reconciler".
#include "api/api_impl.hpp"
#include "api/audit_entries.hpp"
#include "api/json_body.hpp"
#include "wire/json.hpp"

namespace hookd::api {
namespace {

inline constexpr std::size_t kMaxResolveReason = 1000;
inline constexpr std::size_t kMaxEntityState = 256;

ApiError no_reconciler() {
  return not_found("no reconciler: no [[source]] of this hookd has a [source.reconcile] table");
}

std::string difference_what(const std::string& id) { return "difference '" + id + "'"; }

// The query's `source`, `state` and `kind`; a value hookd does not know → 422 naming it.
std::expected<store::DifferenceFilter, ApiError> difference_filter_of(const Call& call) {
  store::DifferenceFilter filter;
  std::vector<FieldError> errors;
  if (auto v = call.request.query_param("source"); v && !v->empty()) filter.source = *v;
  if (auto v = call.request.query_param("state"); v && !v->empty()) {
    filter.state = store::parse_difference_state(*v);
    if (!filter.state) errors.push_back({"state", "must be one of open, repaired, resolved"});
  }
  if (auto v = call.request.query_param("kind"); v && !v->empty()) {
    filter.kind = store::parse_difference_kind(*v);
    if (!filter.kind) {
      errors.push_back({"kind", "must be one of missing, stuck, state_mismatch, parked_timeout"});
    }
  }
  if (!errors.empty()) return std::unexpected(query_validation_error(std::move(errors)));
  return filter;
}

// The body's action: a person may repair, ignore or correct the entity's state; `release` is
// the reconciler's own (a parked event forwarded without its dependency).
store::DifferenceAction action_of(Fields& f) {
  const auto text = f.required_string("action", 32);
  const auto action = store::parse_difference_action(text);
  if (!text.empty() && (!action || *action == store::DifferenceAction::kRelease)) {
    f.add_error("action", "must be one of repair, ignore, correct_state");
  }
  return action.value_or(store::DifferenceAction::kIgnore);
}

std::expected<DifferenceResolution, ApiError> difference_resolution_of(const nlohmann::json& body) {
  Fields f(body);
  DifferenceResolution r;
  r.action = action_of(f);
  r.state = f.string("state", kMaxEntityState);
  if (r.action == store::DifferenceAction::kCorrectState) {
    if (!f.present("state")) {
      f.add_error("state", "required with correct_state: the entity's state from now on");
    } else if (r.state && r.state->empty()) {
      f.add_error("state", "must not be empty");
    }
  } else if (f.present("state")) {
    f.add_error("state", "only correct_state takes a state");
  }
  r.reason = f.required_text("reason", kMaxResolveReason);
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  return r;
}

}  // namespace

Reply Api::Impl::start_reconcile_run(Call& call) {
  if (deps_.reconcile == nullptr) return std::unexpected(no_reconciler());
  const auto& source = call.param("source");
  auto run = deps_.reconcile->start_run(source, "api");
  if (!run) {
    switch (run.error().code) {
      case ErrorCode::kNotFound:
        return std::unexpected(not_found("source '" + source + "' has no reconciler"));
      case ErrorCode::kConflict:
        return std::unexpected(conflict("a run is in progress (source '" + source + "')"));
      default:
        return std::unexpected(from_store_error(run.error()));
    }
  }
  auto response = json_response(202, wire::dump(wire::to_json(*run)));
  response.headers.set("Location", "/api/v1/hookd/reconcile/runs/" + run->id);
  return response;
}

Reply Api::Impl::list_reconcile_runs(Call& call) {
  auto page = page_of(call, true);
  if (!page) return std::unexpected(page.error());
  std::optional<std::string> source;
  if (auto v = call.request.query_param("source"); v && !v->empty()) source = *v;
  auto runs = deps_.store.reconcile_list_runs(source, *page);
  if (!runs) return std::unexpected(from_store_error(runs.error()));
  return json_response(200, wire::page_json(*runs, *page));
}

Reply Api::Impl::get_reconcile_run(Call& call) {
  const auto& id = call.param("run_id");
  auto run = deps_.store.reconcile_get_run(id);
  if (!run) return std::unexpected(from_store_error(run.error(), "reconcile run '" + id + "'"));
  return json_response(200, wire::dump(wire::to_json(*run)));
}

Reply Api::Impl::list_differences(Call& call) {
  auto filter = difference_filter_of(call);
  if (!filter) return std::unexpected(filter.error());
  auto page = page_of(call, true);
  if (!page) return std::unexpected(page.error());
  auto differences = deps_.store.reconcile_list_differences(*filter, *page);
  if (!differences) return std::unexpected(from_store_error(differences.error()));
  return json_response(200, wire::page_json(*differences, *page));
}

Reply Api::Impl::get_difference(Call& call) {
  const auto& id = call.param("difference_id");
  auto difference = deps_.store.reconcile_get_difference(id);
  if (!difference) {
    return std::unexpected(from_store_error(difference.error(), difference_what(id)));
  }
  auto actions = deps_.store.reconcile_actions(id);
  if (!actions) return std::unexpected(from_store_error(actions.error()));
  return json_response(200, wire::dump(wire::to_json(*difference, *actions)));
}

// Only an open difference takes an action (409 otherwise); the reconciler applies it with its
// effect and the audit entry in one transaction and answers the difference as it is now.
Reply Api::Impl::resolve_difference(Call& call) {
  if (deps_.reconcile == nullptr) return std::unexpected(no_reconciler());
  const auto& id = call.param("difference_id");
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  auto resolution = difference_resolution_of(*body);
  if (!resolution) return std::unexpected(resolution.error());
  resolution->audit = audit_entry(call, "reconcile.difference.resolve", "difference", id);
  resolution->audit.reason = resolution->reason;
  auto resolved = deps_.reconcile->resolve(id, *resolution);
  if (!resolved) {
    if (resolved.error().code == ErrorCode::kInvalidArgument) {
      return std::unexpected(validation_error({{"action", resolved.error().message}}));
    }
    return std::unexpected(from_store_error(resolved.error(), difference_what(id)));
  }
  return json_response(200, wire::dump(wire::to_json(*resolved)));
}

}  // namespace hookd::api
