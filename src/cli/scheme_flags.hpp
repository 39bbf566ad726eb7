// The flags `hookd sign` and `hookd verify` share: which signature scheme, its secrets and
// its scheme-specific settings, and their translation into hookd::SchemeOptions.
// Thread-safety: plain values and free functions; the CLI11 app is used from main only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hookd/result.hpp"
#include "hookd/signing.hpp"

namespace CLI {
class App;
}

namespace hookd::cli {

// The flags as given; unset optionals keep the scheme's defaults.
struct SchemeFlags {
  std::string scheme;
  std::vector<std::string> secrets;
  std::optional<std::string> naming;            // standard schemes: webhook | svix
  std::optional<std::string> signature_header;  // hmac-hex-ts, hmac
  std::optional<std::string> timestamp_header;  // hmac-hex-ts, hmac
  std::optional<std::string> algorithm;         // hmac: sha256 | sha512
  std::optional<std::string> encoding;          // hmac: hex | base64
  std::optional<std::string> signature_prefix;  // hmac
  std::optional<std::string> content_template;  // hmac
  std::optional<std::string> id_header;         // hmac
};

// One line listing every scheme, for help texts.
inline constexpr const char* kSchemeList =
    "standard (alias svix), standard-ed25519, stripe, github, hmac-hex-ts, hmac";

// Registers --scheme, --secret and the scheme-specific flags on a subcommand.
void add_scheme_flags(CLI::App& command, SchemeFlags& flags);

// Checks the flags and builds the options. kInvalidArgument for an unknown scheme or value,
// no secret, or a flag that does not apply to the chosen scheme. Without --naming, the
// standard schemes use webhook-* headers, except when the scheme was named "svix".
Result<SchemeOptions> to_scheme_options(const SchemeFlags& flags);

// The header naming a captured request uses: svix-* when it has a svix-signature header and
// no webhook-signature header, webhook-* otherwise.
HeaderNaming detect_naming(const HttpHeaders& headers);

}  // namespace hookd::cli
