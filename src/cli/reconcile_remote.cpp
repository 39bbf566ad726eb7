// `hookd reconcile list|runs|show|resolve|run --url …`: the reconciler through a running hookd's
// API. Tables have the columns of the database forms (times as the API gives them, RFC 3339);
// `run` starts the daemon's own run (202) and polls it until it closes.
#include <CLI/CLI.hpp>
#include <ostream>
#include <thread>

#include "cli/exit_codes.hpp"
#include "cli/reconcile_command.hpp"

namespace hookd::cli {
namespace {

constexpr const char* kReconcile = "hookd reconcile";
const std::string kBase = "/api/v1/hookd/reconcile";
constexpr auto kPollEvery = std::chrono::milliseconds(200);

void print_differences(const nlohmann::json& rows, std::ostream& out) {
  out << "ID\tSOURCE\tKIND\tSTATE\tSUBJECT\tLOCAL\tREMOTE\tDETAIL\n";
  for (const auto& d : rows) {
    out << json_cell(d, "id") << '\t' << json_cell(d, "source") << '\t' << json_cell(d, "kind")
        << '\t' << json_cell(d, "state") << '\t' << json_cell(d, "subject") << '\t'
        << json_cell(d, "localState") << '\t' << json_cell(d, "remoteState") << '\t'
        << json_cell(d, "detail") << '\n';
  }
}

void print_runs(const nlohmann::json& rows, std::ostream& out) {
  out << "ID\tSOURCE\tTRIGGER\tSTARTED\tFINISHED\tITEMS\tFOUND\tREPAIRED\tERROR\n";
  for (const auto& r : rows) {
    out << json_cell(r, "id") << '\t' << json_cell(r, "source") << '\t' << json_cell(r, "trigger")
        << '\t' << json_cell(r, "startedAt") << '\t' << json_cell(r, "finishedAt") << '\t'
        << json_cell(r, "itemsRead") << '\t' << json_cell(r, "differencesFound") << '\t'
        << json_cell(r, "repaired") << '\t' << json_cell(r, "error") << '\n';
  }
}

int list(const ReconcileArgs& args, bool differences, std::ostream& out, std::ostream& err) {
  std::string path = kBase + (differences ? "/differences" : "/runs") +
                     "?limit=" + std::to_string(args.limit) + query_part("source", args.source);
  if (differences) path += query_part("state", args.state) + query_part("kind", args.kind);
  RemoteAnswer answer = call_api(args.remote, "GET", path);
  if (int code = report_failure(answer, kReconcile, err); code != 0) return code;
  bool done = true;
  print_page(page_rows(answer, done), args.json, differences ? print_differences : print_runs, out);
  return kExitOk;
}

int print_json_answer(const RemoteAnswer& answer, std::ostream& out, std::ostream& err) {
  if (int code = report_failure(answer, kReconcile, err); code != 0) return code;
  auto parsed_body = nlohmann::json::parse(answer.body, nullptr, false);
  out << (parsed_body.is_discarded() ? answer.body : parsed_body.dump(2)) << '\n';
  return kExitOk;
}

int resolve(const ReconcileArgs& args, std::ostream& out, std::ostream& err) {
  nlohmann::json body = {{"action", args.action}, {"reason", args.reason}};
  if (args.to_state) body["state"] = *args.to_state;
  return print_json_answer(
      call_api(args.remote, "POST", kBase + "/differences/" + path_segment(args.id) + "/resolve",
               body.dump()),
      out, err);
}

// Starts the daemon's run and waits, within the timeout, for it to leave "running".
int run(const ReconcileArgs& args, std::ostream& out, std::ostream& err) {
  RemoteAnswer started =
      call_api(args.remote, "POST", kBase + "/" + path_segment(args.run_source) + "/run", "{}");
  if (int code = report_failure(started, kReconcile, err); code != 0) return code;
  auto state = nlohmann::json::parse(started.body, nullptr, false);
  const std::string id = state.is_object() ? state.value("id", "") : "";
  const auto deadline = std::chrono::steady_clock::now() + args.remote.timeout;
  while (state.is_object() && state.value("state", "") == "running") {
    if (std::chrono::steady_clock::now() >= deadline) {
      err << kReconcile << ": run " << id << " still running after --timeout-ms; see "
          << "'hookd reconcile runs'\n";
      return kExitInvalid;
    }
    std::this_thread::sleep_for(kPollEvery);
    RemoteAnswer polled = call_api(args.remote, "GET", kBase + "/runs/" + path_segment(id));
    if (int code = report_failure(polled, kReconcile, err); code != 0) return code;
    state = nlohmann::json::parse(polled.body, nullptr, false);
  }
  if (!state.is_object()) {
    err << kReconcile << ": hookd's answer is not a run\n";
    return kExitInvalid;
  }
  const bool failed = !state.value("error", nlohmann::json()).is_null();
  if (args.json) {
    out << state.dump(2) << '\n';
  } else {
    out << "run " << id << " of " << json_cell(state, "source") << ": "
        << json_cell(state, "itemsRead") << " items read, " << json_cell(state, "differencesFound")
        << " differences found, " << json_cell(state, "repaired") << " repaired"
        << (failed ? ", failed: " + json_cell(state, "error") : "") << '\n';
  }
  return failed ? kExitInvalid : kExitOk;
}

}  // namespace

int run_reconcile_remote(const ReconcileArgs& args, std::ostream& out, std::ostream& err) {
  if (!remote_flags_complete(args.remote, kReconcile, err)) return kExitUsage;
  if (parsed(args.runs)) return list(args, false, out, err);
  if (parsed(args.show)) {
    return print_json_answer(
        call_api(args.remote, "GET", kBase + "/differences/" + path_segment(args.id)), out, err);
  }
  if (parsed(args.resolve)) return resolve(args, out, err);
  if (parsed(args.run)) return run(args, out, err);
  return list(args, true, out, err);
}

}  // namespace hookd::cli
