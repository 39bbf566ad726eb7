// SourceSettings: one inbound source as the inbound gateway reads it — plain values, already
// translated from the configuration by the composition root (app/module_options): the core's
// SchemeOptions and RetryPolicyConfig, the resolved event-id location, the forward target.
// Source::create builds the ready-to-use Source (verifier, signer, ...) from it.
// Thread-safety: a plain value.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "hookd/retry.hpp"
#include "hookd/signing.hpp"

namespace hookd::inbound {

// How a request is checked: by the core's signature scheme (SourceSettings::scheme), or by
// hookd's own checks for the kinds the core does not cover.
enum class Verification {
  kScheme,       // a signature scheme the core verifies
  kCloudEvents,  // CloudEvents webhook: a shared token if secrets are set, else none
  kToken,        // a shared token in a header (TokenSettings)
  kNone,         // nothing to check
};

// The shared token's header (Verification::kToken, kCloudEvents with secrets).
struct TokenSettings {
  std::string header = "Authorization";
  std::string prefix = "Bearer ";  // stripped before comparing
};

// Where verified events go (delivered like outbound messages).
struct ForwardSettings {
  std::string url;                   // http(s) URL of the app
  std::string secret;                // whsec_...: forwards are signed with Standard Webhooks
  std::vector<std::string> headers;  // inbound headers copied onto the forward
};

struct SourceSettings {
  std::string name;
  Verification verification = Verification::kScheme;
  SchemeOptions scheme;              // Verification::kScheme only
  std::vector<std::string> secrets;  // several during a rotation
  // Header name or JSON pointer ("/id") of the event id: the configured one, else the
  // scheme's default; "" fails Source::create.
  std::string event_id;
  // The event id is the CloudEvents source + id (CloudEvents with no event_id configured).
  bool cloudevents_identity = false;
  std::string entity_key;  // JSON pointer; "" = none (likewise below)
  std::string sequence;    // JSON pointer to a number
  std::string depends_on;  // JSON pointer to an id or a list of ids
  std::string state;       // JSON pointer to the entity's state
  std::vector<std::string> terminal_states;
  std::string business_key;  // template, e.g. "delivery:{/data/order_id}"
  bool business_key_guard = false;
  std::chrono::milliseconds park_timeout{std::chrono::minutes(15)};
  std::uint64_t max_body_bytes = 0;          // larger bodies are refused
  std::vector<std::string> allowed_origins;  // CloudEvents WebHook-Request-Origin values
  ForwardSettings forward;
  RetryPolicyConfig retry;
  TokenSettings token;
};

}  // namespace hookd::inbound
