// The composition root's translation of the validated Config into each module's own plain
// options, so the modules never read config/ themselves.
// Thread-safety: pure functions.
#pragma once

#include "api/api.hpp"
#include "config/config.hpp"
#include "hookd/result.hpp"
#include "outbound/dispatcher.hpp"

namespace hookd::app {

// [auth] tokens, [server] max_json_depth, [ssrf] allowed_subnets (a bad subnet fails with
// the AddressPolicy's message); the publish and idempotency settings keep their defaults.
Result<api::ApiOptions> api_options(const config::Config& config);

// [delivery] (and [server] shutdown_grace). node_id keeps its default: the caller sets it.
outbound::DispatcherOptions dispatcher_options(const config::Config& config);

}  // namespace hookd::app
