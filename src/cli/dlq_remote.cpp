// `hookd dlq list|replay|discard --url …`: the dead-letter queue through a running hookd's API.
// The table has the columns of the database form; --json prints the API's delivery objects.
#include <CLI/CLI.hpp>
#include <ostream>

#include "cli/dlq_command.hpp"
#include "cli/exit_codes.hpp"
#include "wire/time.hpp"

namespace hookd::cli {
namespace {

constexpr const char* kDlq = "hookd dlq";

// --since/--until as the API takes them (RFC 3339); the flag also accepts Unix ms.
std::optional<std::string> api_time(const std::optional<std::string>& flag) {
  if (!flag) return std::nullopt;
  auto ms = parse_time_flag(*flag);
  return ms ? std::optional<std::string>(wire::format_time(*ms)) : std::nullopt;
}

void print_dead_rows(const nlohmann::json& rows, std::ostream& out) {
  out << "DELIVERY ID\tMESSAGE ID\tENDPOINT ID\tATTEMPTS\tLAST STATUS\tLAST ERROR\tDEAD SINCE\n";
  for (const auto& d : rows) {
    out << json_cell(d, "id") << '\t' << json_cell(d, "msgId") << '\t' << json_cell(d, "endpointId")
        << '\t' << json_cell(d, "attempts") << '\t' << json_cell(d, "lastResponseStatusCode")
        << '\t' << json_cell(d, "lastError") << '\t' << json_cell(d, "updatedAt") << '\n';
  }
}

int list(const DlqArgs& args, std::ostream& out, std::ostream& err) {
  RemoteAnswer answer = call_api(
      args.remote, "GET",
      "/api/v1/hookd/dlq?limit=" + std::to_string(args.limit) + query_part("app_id", args.app) +
          query_part("endpoint_id", args.endpoint) + query_part("since", api_time(args.since)) +
          query_part("until", api_time(args.until)));
  if (int code = report_failure(answer, kDlq, err); code != 0) return code;
  bool done = true;
  print_page(page_rows(answer, done), args.json, print_dead_rows, out);
  if (!done) {
    err << "hookd dlq list: more dead letters match than --limit " << args.limit
        << "; narrow them with --app, --endpoint, --since or --until\n";
  }
  return kExitOk;
}

int act(const DlqArgs& args, bool replay, std::ostream& out, std::ostream& err) {
  nlohmann::json body = {{"ids", args.ids}, {"reason", args.reason}};
  if (replay && args.to_endpoint) body["endpointId"] = *args.to_endpoint;
  RemoteAnswer answer =
      call_api(args.remote, "POST",
               replay ? "/api/v1/hookd/dlq/replay" : "/api/v1/hookd/dlq/discard", body.dump());
  if (int code = report_failure(answer, kDlq, err); code != 0) return code;
  auto parsed = nlohmann::json::parse(answer.body, nullptr, false);
  const char* key = replay ? "replayed" : "discarded";
  const std::string count = parsed.is_object() ? json_cell(parsed, key) : "?";
  out << key << ' ' << count << (count == "1" ? " dead letter" : " dead letters");
  if (replay && args.to_endpoint) out << " to endpoint " << *args.to_endpoint;
  out << '\n';
  return kExitOk;
}

}  // namespace

int run_dlq_remote(const DlqArgs& args, std::ostream& out, std::ostream& err) {
  if (!remote_flags_complete(args.remote, kDlq, err)) return kExitUsage;
  if (args.replay != nullptr && args.replay->parsed()) return act(args, true, out, err);
  if (args.discard != nullptr && args.discard->parsed()) return act(args, false, out, err);
  return list(args, out, err);
}

}  // namespace hookd::cli
