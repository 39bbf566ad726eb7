#include "cli/sign_command.hpp"

#include <CLI/CLI.hpp>
#include <ostream>

#include "cli/exit_codes.hpp"
#include "cli/input_file.hpp"
#include "cli/system_env.hpp"

namespace hookd::cli {
namespace {

constexpr const char* kSignFooter = R"(
Examples:
  hookd sign --scheme standard --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw --body-file body.json
  echo -n '{"a":1}' | hookd sign --scheme stripe --secret sk_test --timestamp 1700000000 --body-file -
  hookd sign --scheme hmac --secret s3cret --algorithm sha512 --encoding base64 \
      --template '{id}.{timestamp}.{body}' --body-file body.json)";

int sign_usage_error(std::ostream& err, const Error& error) {
  err << "hookd sign: " << error.message << '\n';
  return kExitUsage;
}

}  // namespace

CLI::App* add_sign_command(CLI::App& app, SignArgs& args) {
  CLI::App* sign = app.add_subcommand(
      "sign",
      "Sign a body: print the signature headers (and the id/timestamp headers the "
      "scheme uses), one 'name: value' per line");
  add_scheme_flags(*sign, args.scheme);
  sign->add_option_function<std::string>(
          "--id", [&args](const std::string& id) { args.id = id; },
          "Message id, for schemes that sign it (default: a fresh msg_ id)")
      ->type_name("ID");
  sign->add_option_function<std::int64_t>(
          "--timestamp", [&args](std::int64_t ts) { args.timestamp = ts; },
          "Unix seconds to sign with (default: now)")
      ->type_name("UNIX_SECONDS");
  sign->add_option("--body-file", args.body_file,
                   "File holding the exact body bytes to sign; - reads standard input")
      ->required()
      ->type_name("FILE");
  sign->footer(kSignFooter);
  return sign;
}

int run_sign(const SignArgs& args, std::ostream& out, std::ostream& err) {
  Result<SchemeOptions> options = to_scheme_options(args.scheme);
  if (!options) return sign_usage_error(err, options.error());
  Result<std::string> body = read_input_file(args.body_file);
  if (!body) return sign_usage_error(err, body.error());
  Result<Signer> signer = Signer::create(*options, args.scheme.secrets);
  if (!signer) return sign_usage_error(err, signer.error());

  const std::string id = args.id ? *args.id : new_message_id();
  const SignInput input{
      .id = id, .timestamp = args.timestamp.value_or(unix_now_seconds()), .body = *body};
  out << format_headers(signer->sign(input));
  return out.good() ? kExitOk : kExitUsage;
}

std::string format_headers(const HttpHeaders& headers) {
  std::string text;
  for (const HttpHeader& header : headers) {
    text += header.name + ": " + header.value + "\n";
  }
  return text;
}

}  // namespace hookd::cli
