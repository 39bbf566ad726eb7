// The composition root's translation of the validated Config into each module's own plain
// options: api, outbound, inbound, proxy and the HTTP server never read config/ themselves.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "api/api.hpp"
#include "app/listen_address.hpp"
#include "config/config.hpp"
#include "hookd/result.hpp"
#include "inbound/forwarder.hpp"
#include "inbound/source_settings.hpp"
#include "net/http_server.hpp"
#include "outbound/dispatcher.hpp"
#include "proxy/gateway_options.hpp"
#include "reconcile/reconcile_options.hpp"
#include "store/retention_purger.hpp"

namespace hookd::app {

// [auth] tokens, [server] max_json_depth, [ssrf] allowed_subnets (a bad subnet fails with
// the AddressPolicy's message), each [[proxy]]'s ttl (for resolved keys); the publish and
// idempotency settings keep their defaults.
Result<api::ApiOptions> api_options(const config::Config& config);

// [delivery] (and [server] shutdown_grace). node_id keeps its default: the caller sets it.
outbound::DispatcherOptions dispatcher_options(const config::Config& config);

// One [[source]]: its scheme as the core's SchemeOptions (or hookd's own Verification), the
// event-id location (the configured one, else the scheme's default), its retry policy.
inbound::SourceSettings source_settings(const config::SourceConfig& source);
std::vector<inbound::SourceSettings> source_settings(
    const std::vector<config::SourceConfig>& sources);

// The forwarder's options from [delivery] and [server]; its lease owner is
// "<node_id>/forwarder".
inbound::ForwarderOptions forwarder_options(const config::Config& config,
                                            const std::string& node_id);

// One ProxyRoute per [[proxy]], in file order (an upstream's trailing "/" dropped); the
// claims' owner is "<node_id>/proxy". The batching and sweep settings keep their defaults.
proxy::GatewayOptions gateway_options(const config::Config& config, const std::string& node_id);

// One [source.reconcile] (every key as is, durations in ms); the lease owner is
// "<node_id>/reconcile"; max_json_depth from [server].
reconcile::ReconcileOptions reconcile_options(const config::ReconcileConfig& c,
                                              const config::ServerConfig& server,
                                              const std::string& node_id);

// [retention] (a "0" period = unset: kept forever); reconcile_margin = the longest
// [source.reconcile] overlap plus a day.
store::PurgerOptions purger_options(const config::Config& config);

// [server] on the parsed listen address; io_threads 0 = the hardware's threads (at least 2).
net::HttpServerOptions server_options(const config::ServerConfig& server,
                                      const ListenAddress& listen);

}  // namespace hookd::app
