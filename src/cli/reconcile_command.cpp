#include "cli/reconcile_command.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "app/reconcile_parts.hpp"
#include "app/store_factory.hpp"
#include "cli/exit_codes.hpp"
#include "wire/json.hpp"

namespace hookd::cli {
namespace {

store::PageRequest newest_first(int limit) {
  store::PageRequest page;
  page.limit = limit;
  page.descending = true;
  return page;
}

// The filter of `list`, or the usage error to print.
Result<store::DifferenceFilter> difference_filter(const ReconcileArgs& args) {
  store::DifferenceFilter f;
  f.source = args.source;
  if (args.state) {
    f.state = store::parse_difference_state(*args.state);
    if (!f.state) {
      return fail(ErrorCode::kInvalidArgument,
                  "unknown state \"" + *args.state + "\" (open, repaired, resolved)");
    }
  }
  if (args.kind) {
    f.kind = store::parse_difference_kind(*args.kind);
    if (!f.kind) {
      return fail(
          ErrorCode::kInvalidArgument,
          "unknown kind \"" + *args.kind + "\" (missing, stuck, state_mismatch, parked_timeout)");
    }
  }
  return f;
}

int list(store::Store& store, const ReconcileArgs& args, std::ostream& out, std::ostream& err) {
  auto filter = difference_filter(args);
  if (!filter) {
    err << "hookd reconcile list: " << filter.error().message << '\n';
    return kExitUsage;
  }
  auto found = store.reconcile_list_differences(*filter, newest_first(args.limit));
  if (!found) {
    err << "hookd reconcile list: " << found.error().message << '\n';
    return kExitInvalid;
  }
  if (args.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& d : found->data) rows.push_back(wire::to_json(d));
    out << rows.dump(2) << '\n';
    return kExitOk;
  }
  out << "ID\tSOURCE\tKIND\tSTATE\tSUBJECT\tLOCAL\tREMOTE\tDETAIL\n";
  for (const auto& d : found->data) {
    std::string subject = d.subject;
    std::replace(subject.begin(), subject.end(), '\n', ' ');
    out << d.id << '\t' << d.source << '\t' << to_string(d.kind) << '\t' << to_string(d.state)
        << '\t' << subject << '\t' << d.local_state.value_or("-") << '\t'
        << d.remote_state.value_or("-") << '\t' << d.detail << '\n';
  }
  return kExitOk;
}

int runs(store::Store& store, const ReconcileArgs& args, std::ostream& out, std::ostream& err) {
  auto found = store.reconcile_list_runs(args.source, newest_first(args.limit));
  if (!found) {
    err << "hookd reconcile runs: " << found.error().message << '\n';
    return kExitInvalid;
  }
  if (args.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : found->data) rows.push_back(wire::to_json(r));
    out << rows.dump(2) << '\n';
    return kExitOk;
  }
  out << "ID\tSOURCE\tTRIGGER\tSTARTED MS\tFINISHED MS\tITEMS\tFOUND\tREPAIRED\tERROR\n";
  for (const auto& r : found->data) {
    out << r.id << '\t' << r.source << '\t' << r.trigger << '\t' << r.started_at << '\t'
        << (r.finished_at ? std::to_string(*r.finished_at) : "-") << '\t' << r.items_read << '\t'
        << r.differences_found << '\t' << r.repaired << '\t' << r.error.value_or("-") << '\n';
  }
  return kExitOk;
}

int show(store::Store& store, const ReconcileArgs& args, std::ostream& out, std::ostream& err) {
  auto difference = store.reconcile_get_difference(args.id);
  if (!difference) {
    err << "hookd reconcile show: " << difference.error().message << '\n';
    return kExitInvalid;
  }
  auto actions = store.reconcile_actions(args.id);
  if (!actions) {
    err << "hookd reconcile show: " << actions.error().message << '\n';
    return kExitInvalid;
  }
  out << wire::to_json(*difference, *actions).dump(2) << '\n';
  return kExitOk;
}

// A person's action as the API takes it: the same audit entry whichever way it comes.
Result<api::DifferenceResolution> resolution_of(const ReconcileArgs& args) {
  const auto action = store::parse_difference_action(args.action);
  if (!action || *action == store::DifferenceAction::kRelease) {
    return fail(ErrorCode::kInvalidArgument,
                "unknown --action \"" + args.action + "\" (repair, ignore, correct_state)");
  }
  if (*action == store::DifferenceAction::kCorrectState &&
      (!args.to_state || is_blank(*args.to_state))) {
    return fail(ErrorCode::kInvalidArgument, "correct_state needs --state");
  }
  api::DifferenceResolution r;
  r.action = *action;
  r.state = args.to_state;
  r.reason = args.reason;
  r.audit.actor = args.actor;
  r.audit.action = "reconcile.difference.resolve";
  r.audit.target_type = "difference";
  r.audit.target_id = args.id;
  r.audit.reason = args.reason;
  return r;
}

// An action that does not fit is a usage error (2); a store that refuses, exit 1.
int exit_code_of(const Error& e) {
  return e.code == ErrorCode::kInvalidArgument ? kExitUsage : kExitInvalid;
}

int resolve(app::ReconcileParts& reconcilers, const ReconcileArgs& args, std::ostream& out,
            std::ostream& err) {
  auto resolution = resolution_of(args);
  if (!resolution) {
    err << "hookd reconcile resolve: " << resolution.error().message << '\n';
    return kExitUsage;
  }
  auto after = reconcilers.resolve(args.id, *resolution);
  if (!after) {
    err << "hookd reconcile resolve: nothing was changed: " << after.error().message << '\n';
    return exit_code_of(after.error());
  }
  out << wire::to_json(*after).dump(2) << '\n';
  return kExitOk;
}

// One whole run on this thread, under the source's lease like the daemon's runs.
int run(app::ReconcileParts& reconcilers, const ReconcileArgs& args, std::ostream& out,
        std::ostream& err) {
  auto closed = reconcilers.run_once(args.run_source, "cli");
  if (!closed) {
    err << "hookd reconcile run: " << closed.error().message << '\n';
    return closed.error().code == ErrorCode::kNotFound ? kExitUsage : kExitInvalid;
  }
  if (args.json) {
    out << wire::to_json(*closed).dump(2) << '\n';
  } else {
    out << "run " << closed->id << " of " << closed->source << ": " << closed->items_read
        << " items read, " << closed->differences_found << " differences found, "
        << closed->repaired << " repaired" << (closed->error ? ", failed: " + *closed->error : "")
        << '\n';
  }
  return closed->error ? kExitInvalid : kExitOk;
}

// resolve and run act through the sources' reconcilers (the daemon's code, no metrics).
int act(store::Store& store, const config::Config& config, Clock& clock, const ReconcileArgs& args,
        std::ostream& out, std::ostream& err) {
  auto reconcilers = app::ReconcileParts::build(
      {config, store, clock, nullptr, nullptr, "cli-" + std::to_string(::getpid())});
  if (!reconcilers) {
    err << "hookd reconcile: " << reconcilers.error().message << '\n';
    return kExitUsage;
  }
  if (parsed(args.run)) return run(**reconcilers, args, out, err);
  return resolve(**reconcilers, args, out, err);
}

}  // namespace

CLI::App* add_reconcile_command(CLI::App& app, ReconcileArgs& args) {
  CLI::App* rec = app.add_subcommand(
      "reconcile",
      "The reconciler's differences and runs: list, runs, show, resolve, run (database, or --url)");
  rec->require_subcommand(1);
  args.list = rec->add_subcommand("list", "List differences, newest first");
  add_config_flags(*args.list, args.config);
  add_remote_flags(*args.list, args.remote);
  args.list->add_option("--source", args.source, "only this source");
  args.list->add_option("--state", args.state, "only this state (open, repaired, resolved)");
  args.list->add_option("--kind", args.kind,
                        "only this kind (missing, stuck, state_mismatch, parked_timeout)");
  args.list->add_option("--limit", args.limit, "at most this many (1-250)")
      ->check(CLI::Range(1, 250));
  args.list->add_flag("--json", args.json, "print JSON instead of a table");
  args.runs = rec->add_subcommand("runs", "List reconcile runs, newest first");
  add_config_flags(*args.runs, args.config);
  add_remote_flags(*args.runs, args.remote);
  args.runs->add_option("--source", args.source, "only this source");
  args.runs->add_option("--limit", args.limit, "at most this many (1-250)")
      ->check(CLI::Range(1, 250));
  args.runs->add_flag("--json", args.json, "print JSON instead of a table");
  args.show = rec->add_subcommand("show", "Show one difference with its evidence and actions");
  add_config_flags(*args.show, args.config);
  add_remote_flags(*args.show, args.remote);
  args.show->add_option("id", args.id, "the difference id (rcd_...)")->required();
  args.resolve = rec->add_subcommand(
      "resolve", "Repair, ignore or correct the state of an open difference (audited)");
  add_config_flags(*args.resolve, args.config);
  add_remote_flags(*args.resolve, args.remote);
  args.resolve->add_option("id", args.id, "the difference id (rcd_...)")->required();
  args.resolve->add_option("--action", args.action, "repair, ignore or correct_state")->required();
  args.resolve->add_option("--state", args.to_state, "correct_state: the entity's state");
  add_audit_flags(*args.resolve, args.reason, args.actor);
  args.run = rec->add_subcommand(
      "run", "Run the source's reconciler once now, here (its feed, stuck and parked checks)");
  add_config_flags(*args.run, args.config);
  add_remote_flags(*args.run, args.remote);
  args.run->add_option("source", args.run_source, "a [[source]] with [source.reconcile]")
      ->required();
  args.run->add_flag("--json", args.json, "print the closed run as JSON");
  return rec;
}

bool parsed(const CLI::App* command) { return command != nullptr && command->parsed(); }

int run_reconcile_on(store::Store& store, const config::Config& config, Clock& clock,
                     const ReconcileArgs& args, std::ostream& out, std::ostream& err) {
  if (parsed(args.runs)) return runs(store, args, out, err);
  if (parsed(args.show)) return show(store, args, out, err);
  if (parsed(args.resolve) || parsed(args.run)) return act(store, config, clock, args, out, err);
  return list(store, args, out, err);
}

int run_reconcile(const ReconcileArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.remote.url.empty()) return run_reconcile_remote(args, out, err);
  const auto config = load_config(args.config, "reconcile", err);
  if (!config) return kExitUsage;
  auto opened = app::open_store(*config);
  if (!opened) {
    err << "hookd reconcile: cannot open the database: " << opened.error().message << '\n';
    return kExitInvalid;
  }
  return run_reconcile_on(*(*opened)->store, *config, (*opened)->clock, args, out, err);
}

}  // namespace hookd::cli
