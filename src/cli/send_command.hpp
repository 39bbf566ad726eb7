// `hookd send` and `hookd replay`: thin clients of a running hookd's API (remote_api.hpp).
//   hookd send <app> --event-type T (--data JSON | --data-file F) [--event-id ID]
//              [--channel C]... [--json] [--url U --token T]
//     publishes one message (POST /api/v1/app/{app}/msg). The payload's bytes are sent as given
//     (never re-serialized); it must be a JSON object. Prints the message id, or with --json
//     hookd's whole answer.
//   hookd replay <app> <msg> <endpoint> [--json] [--url U --token T]
//     sends a message to an endpoint once more (Svix's resend; the attempt is marked manual).
// Exit 0 when hookd accepted, 1 when it refused or could not be reached, 2 for bad flags or input.
// Thread-safety: call from main only.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cli/remote_api.hpp"

namespace CLI {
class App;
}

namespace hookd::cli {

struct SendArgs {
  RemoteFlags remote;
  std::string app;
  std::string event_type;
  std::optional<std::string> data;
  std::optional<std::string> data_file;
  std::optional<std::string> event_id;
  std::vector<std::string> channels;
  bool json = false;
};

struct ReplayArgs {
  RemoteFlags remote;
  std::string app;
  std::string message;
  std::string endpoint;
  bool json = false;
};

CLI::App* add_send_command(CLI::App& app, SendArgs& args);
CLI::App* add_replay_command(CLI::App& app, ReplayArgs& args);

int run_send(const SendArgs& args, std::ostream& out, std::ostream& err);
int run_replay(const ReplayArgs& args, std::ostream& out, std::ostream& err);

// The publish request body: the payload's text is placed as it is (exported for tests).
std::string publish_body(const SendArgs& args, const std::string& payload);

}  // namespace hookd::cli
