#include "cli/send_command.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/exit_codes.hpp"
#include "cli/input_file.hpp"

namespace hookd::cli {
namespace {

constexpr const char* kSend = "hookd send";
constexpr const char* kReplay = "hookd replay";

std::optional<std::string> payload_text(const SendArgs& args, std::ostream& err) {
  if (args.data.has_value() == args.data_file.has_value()) {
    err << kSend << ": give the payload with exactly one of --data or --data-file\n";
    return std::nullopt;
  }
  std::string text;
  if (args.data) {
    text = *args.data;
  } else {
    auto read = read_input_file(*args.data_file);
    if (!read) {
      err << kSend << ": " << read.error().message << '\n';
      return std::nullopt;
    }
    text = std::move(*read);
  }
  // Checked here for a clear message; hookd checks it again. The text itself is sent unchanged.
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    err << kSend << ": the payload must be a JSON object\n";
    return std::nullopt;
  }
  return text;
}

int print_answer(const RemoteAnswer& answer, bool json, const char* field, std::ostream& out) {
  if (json) {
    out << (answer.body.empty() ? "{}" : answer.body) << '\n';
    return kExitOk;
  }
  auto parsed = nlohmann::json::parse(answer.body, nullptr, false);
  if (parsed.is_object() && parsed.contains(field) && parsed[field].is_string()) {
    out << parsed[field].get<std::string>() << '\n';
  }
  return kExitOk;
}

}  // namespace

std::string publish_body(const SendArgs& args, const std::string& payload) {
  nlohmann::json head = {{"eventType", args.event_type}};
  if (args.event_id) head["eventId"] = *args.event_id;
  if (!args.channels.empty()) head["channels"] = args.channels;
  std::string body = head.dump();
  body.pop_back();  // the closing brace: the payload member follows, as its own bytes
  body += ",\"payload\":";
  body += payload;
  body += '}';
  return body;
}

CLI::App* add_send_command(CLI::App& app, SendArgs& args) {
  CLI::App* cmd = app.add_subcommand("send", "Publish a message through a running hookd (API)");
  cmd->add_option("app", args.app, "Application id or uid")->required();
  cmd->add_option("--event-type", args.event_type, "The message's event type")->required();
  cmd->add_option("--data", args.data, "The payload, a JSON object (sent byte for byte)");
  cmd->add_option("--data-file", args.data_file, "Read the payload from this file ('-' = stdin)");
  cmd->add_option("--event-id", args.event_id, "Your id of the event (deduplicated by hookd)");
  cmd->add_option("--channel", args.channels, "A channel (repeatable)");
  cmd->add_flag("--json", args.json, "Print hookd's whole answer as JSON");
  add_remote_flags(*cmd, args.remote);
  cmd->footer("Exit codes: 0 accepted, 1 refused by hookd or unreachable, 2 bad flags or input.");
  return cmd;
}

CLI::App* add_replay_command(CLI::App& app, ReplayArgs& args) {
  CLI::App* cmd =
      app.add_subcommand("replay", "Send a message to an endpoint once more (API, audited)");
  cmd->add_option("app", args.app, "Application id or uid")->required();
  cmd->add_option("message", args.message, "Message id or eventId")->required();
  cmd->add_option("endpoint", args.endpoint, "Endpoint id or uid")->required();
  cmd->add_flag("--json", args.json, "Print hookd's answer as JSON");
  add_remote_flags(*cmd, args.remote);
  cmd->footer("Exit codes: 0 resent, 1 refused by hookd or unreachable, 2 bad flags.");
  return cmd;
}

int run_send(const SendArgs& args, std::ostream& out, std::ostream& err) {
  if (!remote_flags_complete(args.remote, kSend, err)) return kExitUsage;
  auto payload = payload_text(args, err);
  if (!payload) return kExitUsage;
  RemoteAnswer answer =
      call_api(args.remote, "POST", "/api/v1/app/" + path_segment(args.app) + "/msg",
               publish_body(args, *payload));
  if (int code = report_failure(answer, kSend, err); code != 0) return code;
  return print_answer(answer, args.json, "id", out);
}

int run_replay(const ReplayArgs& args, std::ostream& out, std::ostream& err) {
  if (!remote_flags_complete(args.remote, kReplay, err)) return kExitUsage;
  std::string path = "/api/v1/app/" + path_segment(args.app) + "/msg/" +
                     path_segment(args.message) + "/endpoint/" + path_segment(args.endpoint) +
                     "/resend";
  RemoteAnswer answer = call_api(args.remote, "POST", path);
  if (int code = report_failure(answer, kReplay, err); code != 0) return code;
  if (args.json) out << (answer.body.empty() ? "{}" : answer.body) << '\n';
  return kExitOk;
}

}  // namespace hookd::cli
