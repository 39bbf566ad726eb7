// `hookd reconcile list|runs|show|resolve|run`: the reconciler's differences and runs, read,
// resolved and run straight on the configured database (no running daemon or API token
// needed), docs/cli.md and docs/reconciliation.md.
//   hookd reconcile list [--source S] [--state open|repaired|resolved] [--kind K] [--limit N]
//                        [--json]                      — differences, newest first
//   hookd reconcile runs [--source S] [--limit N] [--json] — runs, newest first
//   hookd reconcile show <rcd_...>                     — one difference with its actions (JSON)
//   hookd reconcile resolve <rcd_...> --action repair|ignore|correct_state [--state X]
//                        --reason R [--actor A]        — audited (A30)
//   hookd reconcile run <source> [--json]              — one whole run here, now
// `resolve` and `run` go through the daemon's reconcilers (app::ReconcileParts): resolve
// validates the action against the difference and applies it in one transaction with its
// audit entry (`reconcile.difference.resolve`, as through the API; repair inserts the kept
// event through the inbound insert or releases a parked event; correct_state sets the
// entity's state, terminal when the source's terminal_states list it); run takes the
// source's lease like a daemon's run (exit 1 while another node runs it).
// With --url (or HOOKD_URL) and --token (or HOOKD_TOKEN) every form goes through a running
// hookd's API instead (/api/v1/hookd/reconcile/…; `run` starts the daemon's run and waits for it
// to close, within --timeout-ms), audited under the token's name; see reconcile_remote.cpp.
// Exit 0 on success; 1 when the database cannot be read or written, the difference does not
// exist or is not open, or the run failed or its source is leased elsewhere; 2 for bad flags,
// configuration, an unknown source or an action that does not fit the difference.
// Thread-safety: call from main only.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "cli/audit_flags.hpp"
#include "cli/config_flags.hpp"
#include "cli/remote_api.hpp"
#include "config/config.hpp"
#include "hookd/env.hpp"
#include "store/store.hpp"

namespace CLI {
class App;
}

namespace hookd::cli {

struct ReconcileArgs {
  ConfigFlags config;
  RemoteFlags remote;
  std::optional<std::string> source;
  std::optional<std::string> state;
  std::optional<std::string> kind;
  int limit = 50;
  bool json = false;
  std::string id;                       // show, resolve
  std::string action;                   // resolve
  std::optional<std::string> to_state;  // resolve --state (correct_state)
  std::string reason;                   // resolve
  std::string actor = kDefaultActor;    // resolve
  std::string run_source;               // run
  CLI::App* list = nullptr;
  CLI::App* runs = nullptr;
  CLI::App* show = nullptr;
  CLI::App* resolve = nullptr;
  CLI::App* run = nullptr;
};

CLI::App* add_reconcile_command(CLI::App& app, ReconcileArgs& args);

// True when `command` (one of ReconcileArgs' subcommands) is the one on the command line.
bool parsed(const CLI::App* command);

int run_reconcile(const ReconcileArgs& args, std::ostream& out, std::ostream& err);

// The --url forms (reconcile_remote.cpp).
int run_reconcile_remote(const ReconcileArgs& args, std::ostream& out, std::ostream& err);

// The subcommand that was parsed, on an open store (the tests' entry point).
int run_reconcile_on(store::Store& store, const config::Config& config, Clock& clock,
                     const ReconcileArgs& args, std::ostream& out, std::ostream& err);

}  // namespace hookd::cli
