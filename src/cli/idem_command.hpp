// `hookd idem list|resolve`: the idempotency gateway's keys, read and resolved straight in the
// configured database (no running daemon or API token needed).
//   hookd idem list [--proxy P] [--state claimed|completed|not_replayable|unknown] [--limit N]
//                   [--json]
//   hookd idem resolve <key id> --outcome completed|not_executed --reason R [--actor A]
//                   [--status N [--body TEXT] [--content-type T]]
//     completed: the key becomes replayable (with the given answer, or a note naming who
//     resolved it); not_executed: the key is released and the client's next retry is sent.
//     Only an unknown key can be resolved. Audited (`proxy_key.resolve`).
// With --url (or HOOKD_URL) and --token (or HOOKD_TOKEN) both forms go through a running
// hookd's API instead (GET /api/v1/hookd/idempotency, POST …/{id}/resolve), audited under the
// token's name (--actor is not used); see idem_remote.cpp.
// Exit 0 on success, 1 when the database cannot be read or written, the key does not exist or
// is not unknown, 2 for bad flags or configuration.
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

struct IdemArgs {
  ConfigFlags config;
  RemoteFlags remote;
  std::optional<std::string> proxy;
  std::optional<std::string> state;
  int limit = 50;
  bool json = false;
  std::string id;       // resolve
  std::string outcome;  // resolve
  std::optional<int> status;
  std::string body;
  std::string content_type = "application/json";
  std::string reason;
  std::string actor = kDefaultActor;
  CLI::App* list = nullptr;
  CLI::App* resolve = nullptr;
};

CLI::App* add_idem_command(CLI::App& app, IdemArgs& args);

int run_idem(const IdemArgs& args, std::ostream& out, std::ostream& err);

// The --url forms (idem_remote.cpp).
int run_idem_remote(const IdemArgs& args, std::ostream& out, std::ostream& err);

}  // namespace hookd::cli
