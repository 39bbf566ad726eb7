#include "cli/serve_command.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <ostream>

#include "app/api_token.hpp"
#include "app/app.hpp"
#include "app/files.hpp"
#include "app/malloc_tuning.hpp"
#include "app/shutdown_signals.hpp"
#include "cli/exit_codes.hpp"
#include "env/system_env.hpp"

namespace hookd::cli {
namespace {

constexpr const char* kServeFooter = R"(
Routes: /api/v1/... (REST API, Authorization: Bearer <token>), /metrics (Prometheus),
/healthz (liveness), /readyz (readiness: started and database reachable).
Without any API token configured ([auth] tokens, HOOKD_AUTH_TOKENS or --token) hookd
generates one for this run and prints it once on standard output.
SIGINT/SIGTERM stop gracefully: stop accepting, finish in-flight requests, release leases.
See docs/operations.md.)";

void print_generated_token(std::ostream& out, const std::string& token) {
  out << "hookd: no API token configured; this run accepts the generated token: " << token
      << "\n(configure [auth] tokens or pass --token to choose one)" << std::endl;
}

int serve_until_signal(app::App& app, const ServeArgs& args, app::ShutdownSignals& signals,
                       std::ostream& out, std::ostream& err) {
  if (auto started = app.start(); !started) {
    err << "hookd serve: cannot start: " << started.error().message << '\n';
    return kExitInvalid;
  }
  out << "hookd listening on " << app.base_url() << std::endl;
  if (args.port_file) {
    auto written = app::write_file_atomically(*args.port_file, std::to_string(app.port()) + "\n");
    if (!written) {
      err << "hookd serve: " << written.error().message << '\n';
      app.stop();
      return kExitInvalid;
    }
  }
  const int signal_number = signals.wait();
  out << "hookd: signal " << signal_number << " received, stopping" << std::endl;
  app.stop();
  if (args.port_file) {
    std::error_code ignored;
    std::filesystem::remove(*args.port_file, ignored);
  }
  return kExitOk;
}

}  // namespace

CLI::App* add_serve_command(CLI::App& app, ServeArgs& args) {
  CLI::App* serve = app.add_subcommand("serve", "Run the daemon (API, delivery, metrics)");
  add_config_flags(*serve, args.config);
  serve
      ->add_option_function<std::string>(
          "--listen", [&args](const std::string& listen) { args.config.overrides.listen = listen; },
          "HOST:PORT to listen on (server.listen; default 127.0.0.1:8071; port 0 = any free "
          "port)")
      ->type_name("HOST:PORT");
  serve
      ->add_option_function<std::string>(
          "--token", [&args](const std::string& token) { args.config.overrides.token = token; },
          "API bearer token (replaces [auth] tokens)")
      ->type_name("TOKEN");
  serve
      ->add_option_function<std::string>(
          "--port-file", [&args](const std::string& file) { args.port_file = file; },
          "Write the bound port to FILE (atomically) once listening; removed on exit")
      ->type_name("FILE");
  serve->footer(kServeFooter);
  return serve;
}

int run_serve(const ServeArgs& args, std::ostream& out, std::ostream& err) {
  auto config = load_config(args.config, "serve", err);
  if (!config) return kExitUsage;
  env::SystemRandom random;
  if (auto token = app::ensure_api_token(*config, random)) print_generated_token(out, *token);
  app::keep_freed_memory();
  // Before any thread starts, so every thread inherits the blocked SIGINT/SIGTERM.
  app::ShutdownSignals signals;
  auto app = app::App::create(std::move(*config));
  if (!app) {
    err << "hookd serve: " << app.error().message << '\n';
    return kExitInvalid;
  }
  return serve_until_signal(**app, args, signals, out, err);
}

}  // namespace hookd::cli
