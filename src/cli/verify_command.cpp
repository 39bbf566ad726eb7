#include "cli/verify_command.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <ostream>

#include "cli/exit_codes.hpp"
#include "cli/input_file.hpp"
#include "cli/request_file.hpp"
#include "cli/system_env.hpp"

namespace hookd::cli {
namespace {

constexpr std::int64_t kMaxToleranceSeconds = 366 * 24 * 3600;

constexpr const char* kVerifyFooter = R"(
The request file is JSON: {"headers": {"name": "value", ...}, "body": "<raw body>"}
("body_base64": "<base64>" instead of "body" for bodies that are not UTF-8 text).
Exit status: 0 valid, 1 invalid (reason code and detail on stderr), 2 usage or input error.

Examples:
  hookd verify --scheme standard --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw --request-file req.json
  hookd verify --scheme github --secret s3cret --request-file req.json
  hookd verify --scheme stripe --secret whsec_old --secret whsec_new --now 1700000000 --request-file -)";

int verify_usage_error(std::ostream& err, const Error& error) {
  err << "hookd verify: " << error.message << '\n';
  return kExitUsage;
}

}  // namespace

CLI::App* add_verify_command(CLI::App& app, VerifyArgs& args) {
  CLI::App* verify = app.add_subcommand(
      "verify", "Verify a captured request's signature (exit 0 valid, 1 invalid, 2 error)");
  add_scheme_flags(*verify, args.scheme);
  verify
      ->add_option("--request-file", args.request_file,
                   "JSON file {\"headers\": {...}, \"body\": \"<raw>\"}; - reads standard input")
      ->required()
      ->type_name("FILE");
  verify
      ->add_option("--tolerance", args.tolerance_seconds,
                   "Replay window in seconds, both directions (default: 300)")
      ->check(CLI::Range(std::int64_t{0}, kMaxToleranceSeconds).description(""))
      ->type_name("SECONDS");
  verify
      ->add_option_function<std::int64_t>(
          "--now", [&args](std::int64_t now) { args.now = now; },
          "Unix seconds to check the timestamp against (default: now); use the capture "
          "time to verify an old request")
      ->type_name("UNIX_SECONDS");
  verify->footer(kVerifyFooter);
  return verify;
}

int run_verify(const VerifyArgs& args, std::ostream& out, std::ostream& err) {
  Result<SchemeOptions> options = to_scheme_options(args.scheme);
  if (!options) return verify_usage_error(err, options.error());
  Result<std::string> text = read_input_file(args.request_file);
  if (!text) return verify_usage_error(err, text.error());
  Result<CapturedRequest> request = parse_request_file(*text);
  if (!request) return verify_usage_error(err, request.error());

  if (!args.scheme.naming) options->naming = detect_naming(request->headers);
  options->tolerance = std::chrono::seconds(args.tolerance_seconds);
  Result<Verifier> verifier = Verifier::create(*options, args.scheme.secrets);
  if (!verifier) return verify_usage_error(err, verifier.error());

  const auto verdict =
      verifier->verify(request->headers, request->body, args.now.value_or(unix_now_seconds()));
  if (!verdict) {
    err << to_string(verdict.error().reason) << ": " << verdict.error().detail << '\n';
    return kExitInvalid;
  }
  out << "ok\n";
  return kExitOk;
}

}  // namespace hookd::cli
