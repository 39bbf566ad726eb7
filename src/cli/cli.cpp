#include "cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/dlq_command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/idem_command.hpp"
#include "cli/inbox_command.hpp"
#include "cli/migrate_command.hpp"
#include "cli/reconcile_command.hpp"
#include "cli/scheme_flags.hpp"
#include "cli/send_command.hpp"
#include "cli/serve_command.hpp"
#include "cli/sign_command.hpp"
#include "cli/verify_command.hpp"

namespace hookd::cli {

int run_cli(int argc, char** argv) {
  CLI::App app{"hookd: webhooks and callbacks that cannot be lost silently"};
  app.require_subcommand(0, 1);
  app.footer(std::string("\nSignature schemes for sign/verify: ") + kSchemeList +
             "\nRun 'hookd <subcommand> --help' for a subcommand's flags.");
  SignArgs sign_args;
  VerifyArgs verify_args;
  ServeArgs serve_args;
  MigrateArgs migrate_args;
  const CLI::App* serve = add_serve_command(app, serve_args);
  const CLI::App* migrate = add_migrate_command(app, migrate_args);
  const CLI::App* sign = add_sign_command(app, sign_args);
  const CLI::App* verify = add_verify_command(app, verify_args);
  InboxArgs inbox_args;
  const CLI::App* inbox = add_inbox_command(app, inbox_args);
  DlqArgs dlq_args;
  const CLI::App* dlq = add_dlq_command(app, dlq_args);
  IdemArgs idem_args;
  const CLI::App* idem = add_idem_command(app, idem_args);
  ReconcileArgs reconcile_args;
  const CLI::App* reconcile = add_reconcile_command(app, reconcile_args);
  SendArgs send_args;
  const CLI::App* send = add_send_command(app, send_args);
  ReplayArgs replay_args;
  const CLI::App* replay = add_replay_command(app, replay_args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help exits 0; every other parse error is a usage error (2).
    return app.exit(error) == 0 ? kExitOk : kExitUsage;
  }
  if (serve->parsed()) return run_serve(serve_args, std::cout, std::cerr);
  if (migrate->parsed()) return run_migrate(migrate_args, std::cout, std::cerr);
  if (sign->parsed()) return run_sign(sign_args, std::cout, std::cerr);
  if (verify->parsed()) return run_verify(verify_args, std::cout, std::cerr);
  if (inbox->parsed()) return run_inbox(inbox_args, std::cout, std::cerr);
  if (dlq->parsed()) return run_dlq(dlq_args, std::cout, std::cerr);
  if (idem->parsed()) return run_idem(idem_args, std::cout, std::cerr);
  if (reconcile->parsed()) return run_reconcile(reconcile_args, std::cout, std::cerr);
  if (send->parsed()) return run_send(send_args, std::cout, std::cerr);
  if (replay->parsed()) return run_replay(replay_args, std::cout, std::cerr);
  std::cout << app.help();
  return kExitOk;
}

}  // namespace hookd::cli
