// The idempotency gateway's plain options (one ProxyRoute per [[proxy]] of the config; the
// composition root translates them, see app/module_options). docs/proxy.md describes each.
// Thread-safety: plain value types.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace hookd::proxy {

struct ProxyRoute {
  std::string name;      // requests to /proxy/<name>/<rest> go to upstream + /<rest>
  std::string upstream;  // "http://host:port" or with a base path "http://host:port/base"
  std::vector<std::string> methods{"POST", "PATCH"};  // keyed methods (upper case)
  bool require_key = true;                      // a keyed method without Idempotency-Key -> 400
  std::string tenant_header = "Authorization";  // "" = one tenant
  std::chrono::milliseconds ttl{24LL * 3600 * 1000};  // completed keys expire after this
  std::chrono::milliseconds timeout{10'000};          // upstream total timeout
  std::chrono::milliseconds connect_timeout{3'000};
  std::size_t max_stored_body = 1024 * 1024;  // larger answers are not replayable
  // Answers are held in memory (no streaming yet): one above this is not passed on (502)
  // and its key becomes not_replayable.
  std::size_t max_response_body = 16 * 1024 * 1024;
  std::string status_url;  // "" = none; "{key}" is replaced by the URL-encoded key
  std::chrono::milliseconds status_interval{30'000};
};

struct GatewayOptions {
  std::vector<ProxyRoute> routes;
  std::string owner = "hookd/proxy";                // the claims' owner: "<node id>/proxy"
  std::size_t max_batch = 512;                      // claims + outcomes per durable commit
  std::size_t max_queue = 16'384;                   // waiting for the committer; beyond -> 503
  std::chrono::milliseconds sweep_interval{5'000};  // expired leases -> unknown
};

}  // namespace hookd::proxy
