// Router: the one HTTP handler of `hookd serve`. It sends /api/... to the REST API, /in/...
// to the inbound gateway, /proxy/... to the idempotency gateway, the
// metrics path to the Prometheus text of the registry, /console... to the console's static
// files (console_site.hpp), and answers the liveness probe
// (GET /healthz: the process serves HTTP) and the readiness probe (GET /readyz: started,
// not stopping, and the store answers). Everything else is a 404 problem.
// Transport-free: the App wraps the server's Responder into a Respond, so tests call
// handle() directly.
// Thread-safety: handle() may be called concurrently from any thread; the callbacks given
// in RouterRoutes must be thread-safe too. Set the routes once, before serving.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "hookd/result.hpp"
#include "net/http_types.hpp"

namespace hookd::app {

using Respond = std::move_only_function<void(net::HttpResponse)>;
using RequestHandler = std::function<void(net::HttpRequest, Respond)>;

struct RouterRoutes {
  RequestHandler api;                    // requests under /api/; empty = 503 problem
  RequestHandler inbound;                // requests under /in/; empty = 404 problem
  RequestHandler proxy;                  // requests under /proxy/; empty = 404 problem
  std::function<Status()> readiness;     // ok = ready; the error says why not
  std::function<std::string()> metrics;  // Prometheus text; empty = metrics disabled
  std::string metrics_path = "/metrics";
  bool console = true;  // serve the console under /console (console_site.hpp)
};

enum class RouteKind { kApi, kInbound, kProxy, kHealth, kReady, kMetrics, kConsole, kNotFound };

// Which route a path belongs to (the method is checked by handle()).
RouteKind classify_route(std::string_view path, std::string_view metrics_path, bool metrics_on);

class Router {
 public:
  explicit Router(RouterRoutes routes) : routes_(std::move(routes)) {}

  void handle(net::HttpRequest request, Respond respond) const;

 private:
  RouterRoutes routes_;
};

}  // namespace hookd::app
