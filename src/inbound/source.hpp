// Source: one configured inbound source ([[source]]) in its ready-to-use form: the verifier
// built once from its scheme and secrets, the forward signer (Standard Webhooks), the retry
// policy for forwards, the parsed business-key template and the terminal-state set.
// Built once at startup from its SourceSettings; a bad secret fails create().
// Thread-safety: immutable after create(); share freely across threads.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "hookd/retry.hpp"
#include "hookd/signing.hpp"
#include "inbound/business_key.hpp"
#include "inbound/source_settings.hpp"

namespace hookd::inbound {

struct Source {
  SourceSettings settings;
  std::optional<Verifier> verifier;  // Verification::kScheme only
  Signer forward_signer;             // signs forwards (standard, forward.secret)
  RetryPolicy retry;
  std::optional<BusinessKeyTemplate> business_key;
  std::set<std::string, std::less<>> terminal_states;

  // Errors start with "source <name>: ".
  static Result<Source> create(const SourceSettings& settings);

  const std::string& name() const { return settings.name; }
  bool is_terminal(std::string_view state) const { return terminal_states.contains(state); }
};

// Every source, in the given order. Fails on the first source that cannot be built.
Result<std::vector<std::shared_ptr<const Source>>> build_sources(
    const std::vector<SourceSettings>& settings);

}  // namespace hookd::inbound
