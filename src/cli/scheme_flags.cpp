#include "cli/scheme_flags.hpp"

#include <CLI/CLI.hpp>
#include <string_view>

namespace hookd::cli {
namespace {

using Algorithm = GenericHmacOptions::Algorithm;
using Encoding = GenericHmacOptions::Encoding;

CLI::Option* add_optional(CLI::App& command, const std::string& name,
                          std::optional<std::string>& target, const std::string& description) {
  return command
      .add_option_function<std::string>(
          name, [&target](const std::string& value) { target = value; }, description)
      ->type_name("TEXT");
}

Status reject_unless(bool applies, const std::optional<std::string>& flag, std::string_view name,
                     std::string_view schemes) {
  if (flag && !applies) {
    return fail(ErrorCode::kInvalidArgument,
                std::string(name) + " applies only to --scheme " + std::string(schemes));
  }
  return {};
}

Status check_flags_apply(SchemeKind kind, const SchemeFlags& flags) {
  const bool standard = kind == SchemeKind::kStandard || kind == SchemeKind::kStandardEd25519;
  const bool hmac = kind == SchemeKind::kHmac;
  const bool custom_headers = hmac || kind == SchemeKind::kHmacHexTs;
  for (const auto& check :
       {reject_unless(standard, flags.naming, "--naming", "standard, svix or standard-ed25519"),
        reject_unless(custom_headers, flags.signature_header, "--signature-header",
                      "hmac-hex-ts or hmac"),
        reject_unless(custom_headers, flags.timestamp_header, "--timestamp-header",
                      "hmac-hex-ts or hmac"),
        reject_unless(hmac, flags.algorithm, "--algorithm", "hmac"),
        reject_unless(hmac, flags.encoding, "--encoding", "hmac"),
        reject_unless(hmac, flags.signature_prefix, "--signature-prefix", "hmac"),
        reject_unless(hmac, flags.content_template, "--template", "hmac"),
        reject_unless(hmac, flags.id_header, "--id-header", "hmac")}) {
    if (!check) return check;
  }
  return {};
}

Result<HeaderNaming> parse_naming(const SchemeFlags& flags) {
  if (!flags.naming) {
    return flags.scheme == "svix" ? HeaderNaming::kSvix : HeaderNaming::kWebhook;
  }
  if (*flags.naming == "webhook") return HeaderNaming::kWebhook;
  if (*flags.naming == "svix") return HeaderNaming::kSvix;
  return fail(ErrorCode::kInvalidArgument,
              "--naming must be webhook or svix, not '" + *flags.naming + "'");
}

Status apply_hmac_flags(const SchemeFlags& flags, GenericHmacOptions& hmac) {
  if (flags.algorithm) {
    if (*flags.algorithm == "sha256") {
      hmac.algorithm = Algorithm::kSha256;
    } else if (*flags.algorithm == "sha512") {
      hmac.algorithm = Algorithm::kSha512;
    } else {
      return fail(ErrorCode::kInvalidArgument,
                  "--algorithm must be sha256 or sha512, not '" + *flags.algorithm + "'");
    }
  }
  if (flags.encoding) {
    if (*flags.encoding == "hex") {
      hmac.encoding = Encoding::kHex;
    } else if (*flags.encoding == "base64") {
      hmac.encoding = Encoding::kBase64;
    } else {
      return fail(ErrorCode::kInvalidArgument,
                  "--encoding must be hex or base64, not '" + *flags.encoding + "'");
    }
  }
  hmac.signature_header = flags.signature_header.value_or(hmac.signature_header);
  hmac.timestamp_header = flags.timestamp_header.value_or(hmac.timestamp_header);
  hmac.signature_prefix = flags.signature_prefix.value_or(hmac.signature_prefix);
  hmac.content_template = flags.content_template.value_or(hmac.content_template);
  hmac.id_header = flags.id_header.value_or(hmac.id_header);
  return {};
}

}  // namespace

void add_scheme_flags(CLI::App& command, SchemeFlags& flags) {
  const GenericHmacOptions hmac;
  command.add_option("--scheme", flags.scheme, std::string("Signature scheme: ") + kSchemeList)
      ->required()
      ->type_name("SCHEME");
  command
      .add_option(
          "--secret", flags.secrets,
          "Secret; repeat for several during a rotation. standard/svix: whsec_<base64>; "
          "standard-ed25519: whsk_<base64 seed> (verify also takes whpk_<base64 public "
          "key>); others: the string's bytes are the HMAC key. Or set HOOKD_SECRET (one key) to "
          "keep it out of the process list")
      ->required()
      ->envname("HOOKD_SECRET")
      ->type_name("KEY");
  add_optional(command, "--naming", flags.naming,
               "standard schemes: header names webhook-* or svix-* (default: webhook, svix "
               "when --scheme svix; verify detects it from the request)")
      ->type_name("webhook|svix");
  add_optional(command, "--signature-header", flags.signature_header,
               "hmac-hex-ts, hmac: signature header name (default: " + hmac.signature_header + ")")
      ->type_name("NAME");
  add_optional(command, "--timestamp-header", flags.timestamp_header,
               "hmac-hex-ts, hmac: timestamp header name (default: " + hmac.timestamp_header + ")")
      ->type_name("NAME");
  add_optional(command, "--algorithm", flags.algorithm, "hmac: MAC algorithm (default: sha256)")
      ->type_name("sha256|sha512");
  add_optional(command, "--encoding", flags.encoding, "hmac: MAC encoding (default: hex)")
      ->type_name("hex|base64");
  add_optional(command, "--signature-prefix", flags.signature_prefix,
               "hmac: text before the encoded MAC, e.g. sha256= (default: none)");
  add_optional(command, "--template", flags.content_template,
               "hmac: signed content, placeholders {id} {timestamp} {body} (default: " +
                   hmac.content_template + "; without {timestamp} no window is checked)");
  add_optional(command, "--id-header", flags.id_header,
               "hmac: message id header name, used when the template has {id} (default: " +
                   hmac.id_header + ")")
      ->type_name("NAME");
}

Result<SchemeOptions> to_scheme_options(const SchemeFlags& flags) {
  const std::optional<SchemeKind> kind = parse_scheme(flags.scheme);
  if (!kind) {
    return fail(ErrorCode::kInvalidArgument,
                "unknown scheme '" + flags.scheme + "'; expected one of: " + kSchemeList);
  }
  if (flags.secrets.empty()) {
    return fail(ErrorCode::kInvalidArgument, "at least one --secret is required");
  }
  if (Status applies = check_flags_apply(*kind, flags); !applies) {
    return std::unexpected(applies.error());
  }
  SchemeOptions options;
  options.kind = *kind;
  Result<HeaderNaming> naming = parse_naming(flags);
  if (!naming) return std::unexpected(naming.error());
  options.naming = *naming;
  options.hmac_hex_ts.signature_header =
      flags.signature_header.value_or(options.hmac_hex_ts.signature_header);
  options.hmac_hex_ts.timestamp_header =
      flags.timestamp_header.value_or(options.hmac_hex_ts.timestamp_header);
  if (Status hmac = apply_hmac_flags(flags, options.hmac); !hmac) {
    return std::unexpected(hmac.error());
  }
  return options;
}

HeaderNaming detect_naming(const HttpHeaders& headers) {
  const bool svix = find_header(headers, "svix-signature").has_value();
  const bool webhook = find_header(headers, "webhook-signature").has_value();
  return svix && !webhook ? HeaderNaming::kSvix : HeaderNaming::kWebhook;
}

}  // namespace hookd::cli
