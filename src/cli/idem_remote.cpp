// `hookd idem list|resolve --url …`: the idempotency gateway's keys through a running hookd's API.
// The table has the columns of the database form; --json prints the API's key objects.
#include <CLI/CLI.hpp>
#include <ostream>

#include "cli/exit_codes.hpp"
#include "cli/idem_command.hpp"

namespace hookd::cli {
namespace {

constexpr const char* kIdem = "hookd idem";

void print_key_rows(const nlohmann::json& rows, std::ostream& out) {
  out << "ID\tPROXY\tKEY\tSTATE\tSTATUS\tOWNER\n";
  for (const auto& k : rows) {
    const auto response = k.find("response");
    const bool answered = response != k.end() && response->is_object();
    out << json_cell(k, "id") << '\t' << json_cell(k, "proxy") << '\t' << json_cell(k, "key")
        << '\t' << json_cell(k, "state") << '\t'
        << (answered ? json_cell(*response, "status") : "-") << '\t' << json_cell(k, "owner")
        << '\n';
  }
}

int list(const IdemArgs& args, std::ostream& out, std::ostream& err) {
  RemoteAnswer answer =
      call_api(args.remote, "GET",
               "/api/v1/hookd/idempotency?limit=" + std::to_string(args.limit) +
                   query_part("proxy", args.proxy) + query_part("state", args.state));
  if (int code = report_failure(answer, kIdem, err); code != 0) return code;
  bool done = true;
  print_page(page_rows(answer, done), args.json, print_key_rows, out);
  return kExitOk;
}

int resolve(const IdemArgs& args, std::ostream& out, std::ostream& err) {
  nlohmann::json body = {{"outcome", args.outcome}, {"reason", args.reason}};
  if (args.status) {
    body["response"] = {{"status", *args.status},
                        {"headers", {{"Content-Type", args.content_type}}},
                        {"body", args.body}};
  }
  RemoteAnswer answer =
      call_api(args.remote, "POST",
               "/api/v1/hookd/idempotency/" + path_segment(args.id) + "/resolve", body.dump());
  if (int code = report_failure(answer, kIdem, err); code != 0) return code;
  auto parsed = nlohmann::json::parse(answer.body, nullptr, false);
  out << (parsed.is_discarded() ? answer.body : parsed.dump(2)) << '\n';
  return kExitOk;
}

}  // namespace

int run_idem_remote(const IdemArgs& args, std::ostream& out, std::ostream& err) {
  if (!remote_flags_complete(args.remote, kIdem, err)) return kExitUsage;
  if (args.resolve != nullptr && args.resolve->parsed()) return resolve(args, out, err);
  return list(args, out, err);
}

}  // namespace hookd::cli
