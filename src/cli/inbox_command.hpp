// `hookd inbox list|show`: the inbound inbox, read straight from the configured database
// (no running daemon or API token needed; SQLite readers do not block the daemon).
//   hookd inbox list [--source S] [--status X] [--entity-key K] [--limit N] [--json]
//   hookd inbox show <inbox id> — the event, its payload and its status history, as JSON.
//   hookd inbox replay <inbox id> --reason R [--actor A] — a dead event goes back to
//   `received` (forwarded again at the forwarder's next poll), audited (`inbox.replay`).
// With --url (or HOOKD_URL) and --token (or HOOKD_TOKEN) each form talks to a running hookd's
// API instead (GET /api/v1/hookd/inbox, …/{id}, POST …/{id}/replay): it then works against a
// remote node, `show` includes the entity's state, and a replay is audited under the token's
// name (--actor is not used). The database forms are for when no daemon can be reached.
// Exit 0 on success, 1 when the database cannot be read or written, the event does not exist
// or is not dead (replay), 2 for bad flags (an empty or blank --reason too) or configuration.
// Thread-safety: call from main only.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "cli/audit_flags.hpp"
#include "cli/config_flags.hpp"
#include "cli/remote_api.hpp"

namespace CLI {
class App;
}

namespace hookd::cli {

struct InboxArgs {
  ConfigFlags config;
  RemoteFlags remote;
  std::optional<std::string> source;
  std::optional<std::string> status;
  std::optional<std::string> entity_key;
  int limit = 50;
  bool json = false;
  std::string id;                     // show, replay
  std::string reason;                 // replay
  std::string actor = kDefaultActor;  // replay
  CLI::App* list = nullptr;
  CLI::App* show = nullptr;
  CLI::App* replay = nullptr;
};

CLI::App* add_inbox_command(CLI::App& app, InboxArgs& args);

int run_inbox(const InboxArgs& args, std::ostream& out, std::ostream& err);

}  // namespace hookd::cli
