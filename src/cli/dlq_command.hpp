// `hookd dlq list|replay|discard`: the outbound dead-letter queue, read and changed straight
// in the configured database (like `hookd inbox`: no running daemon or API token needed; a
// running `hookd serve` picks replayed deliveries up at its next poll).
//   hookd dlq list [--app ID] [--endpoint ID] [--since T] [--until T] [--limit N] [--json]
//     — dead letters, newest first; T is RFC 3339 (2024-01-01T00:00:00Z) or Unix ms and
//     bounds the time the delivery went dead. A table, or with --json the API's delivery
//     objects (GET /api/v1/hookd/dlq).
//   hookd dlq replay <delivery id>... --reason R [--to-endpoint ID] [--actor A]
//     — back to pending (attempts reset, due now), optionally to another endpoint of the
//     same application; one `dlq.replay` audit entry per delivery.
//   hookd dlq discard <delivery id>... --reason R [--actor A]
//     — dead → discarded (kept, no longer listed); one `dlq.discard` audit entry each.
// With --url (or HOOKD_URL) and --token (or HOOKD_TOKEN) each form goes through a running
// hookd's API instead (GET /api/v1/hookd/dlq, POST …/dlq/replay, …/dlq/discard), audited under
// the token's name (--actor is not used); see dlq_remote.cpp.
// Replay and discard are all or nothing: when any id is unknown or not dead, every such id
// is named and nothing is changed.
// Exit 0 on success, 1 when the database cannot be read or written, an id is unknown or not
// dead, or the application / target endpoint does not exist; 2 for bad flags (an empty or
// blank --reason too) or configuration.
// Thread-safety: call from main only.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/audit_flags.hpp"
#include "cli/config_flags.hpp"
#include "cli/remote_api.hpp"

namespace CLI {
class App;
}

namespace hookd::store {
class Store;
}

namespace hookd::cli {

struct DlqArgs {
  ConfigFlags config;
  RemoteFlags remote;
  std::optional<std::string> app;          // list: id or uid
  std::optional<std::string> endpoint;     // list
  std::optional<std::string> since;        // list: RFC 3339 or Unix ms (checked while parsing)
  std::optional<std::string> until;        // list
  int limit = 50;                          // list
  bool json = false;                       // list
  std::vector<std::string> ids;            // replay, discard
  std::optional<std::string> to_endpoint;  // replay
  std::string reason;                      // replay, discard
  std::string actor = kDefaultActor;       // replay, discard
  CLI::App* list = nullptr;
  CLI::App* replay = nullptr;
  CLI::App* discard = nullptr;
};

CLI::App* add_dlq_command(CLI::App& app, DlqArgs& args);

// The --url forms (dlq_remote.cpp).
int run_dlq_remote(const DlqArgs& args, std::ostream& out, std::ostream& err);

// Opens the configured database and runs the chosen subcommand on it.
int run_dlq(const DlqArgs& args, std::ostream& out, std::ostream& err);

// The chosen subcommand on an open store (what run_dlq does after opening it; for tests).
int run_dlq_on(store::Store& store, const DlqArgs& args, std::ostream& out, std::ostream& err);

// A --since/--until value: Unix milliseconds (digits only) or an RFC 3339 time with a Z or
// ±hh:mm offset. nullopt when it is neither.
std::optional<std::int64_t> parse_time_flag(std::string_view text);

}  // namespace hookd::cli
