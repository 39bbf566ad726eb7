// Source: one configured inbound source ([[source]]) in its ready-to-use form: the verifier
// built once from its scheme and secrets, the forward signer (Standard Webhooks), the retry
// policy for forwards, the parsed business-key template and the terminal-state set.
// Built once at startup from the validated config; a bad secret fails create().
// Thread-safety: immutable after create(); share freely across threads.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "hookd/result.hpp"
#include "hookd/retry.hpp"
#include "hookd/signing.hpp"
#include "inbound/business_key.hpp"

namespace hookd::inbound {

struct Source {
  config::SourceConfig config;
  std::optional<Verifier> verifier;  // the HMAC/Ed25519 schemes; empty for token/cloudevents/none
  Signer forward_signer;             // signs forwards (standard, forward.secret)
  RetryPolicy retry;
  std::optional<BusinessKeyTemplate> business_key;
  std::set<std::string, std::less<>> terminal_states;
  std::string event_id_location;  // header name or JSON pointer ("/id"); never empty

  static Result<Source> create(const config::SourceConfig& config);

  const std::string& name() const { return config.name; }
  bool is_terminal(std::string_view state) const { return terminal_states.contains(state); }
};

// The core's scheme options for a config source, for schemes the core verifies; nullopt for
// token, cloudevents and none (checked by hookd's own code).
std::optional<SchemeOptions> scheme_options(const config::SourceConfig& config);

// Every source of the config, by name. Fails on the first source that cannot be built.
Result<std::vector<std::shared_ptr<const Source>>> build_sources(
    const std::vector<config::SourceConfig>& configs);

}  // namespace hookd::inbound
