#include "app/router.hpp"

#include "app/console_site.hpp"
#include "ops/metrics.hpp"

namespace hookd::app {
namespace {

net::HttpResponse json_response(int status, std::string body) {
  net::HttpResponse response;
  response.status = status;
  response.headers.set("Content-Type", "application/json");
  response.headers.set("Cache-Control", "no-store");
  response.body = std::move(body);
  return response;
}

bool is_get(const net::HttpRequest& request) { return request.method == "GET"; }

net::HttpResponse method_not_allowed() {
  net::HttpResponse response = net::problem_response(405, "only GET is allowed here");
  response.headers.set("Allow", "GET");
  return response;
}

net::HttpResponse readiness_response(const std::function<Status()>& readiness) {
  const Status status = readiness ? readiness() : Status{};
  if (status) return json_response(200, R"({"status":"ready"})");
  return json_response(503, R"({"status":"not ready","reason":")" +
                                net::json_escape(status.error().message) + "\"}");
}

net::HttpResponse metrics_response(const std::function<std::string()>& metrics) {
  net::HttpResponse response;
  response.headers.set("Content-Type", std::string(ops::kPrometheusContentType));
  response.headers.set("Cache-Control", "no-store");
  response.body = metrics();
  return response;
}

}  // namespace

RouteKind classify_route(std::string_view path, std::string_view metrics_path, bool metrics_on) {
  if (path == "/api" || path.starts_with("/api/")) return RouteKind::kApi;
  if (path.starts_with("/in/")) return RouteKind::kInbound;
  if (path.starts_with("/proxy/")) return RouteKind::kProxy;
  if (path == "/healthz") return RouteKind::kHealth;
  if (path == "/readyz") return RouteKind::kReady;
  if (metrics_on && path == metrics_path) return RouteKind::kMetrics;
  if (is_console_path(path)) return RouteKind::kConsole;
  return RouteKind::kNotFound;
}

void Router::handle(net::HttpRequest request, Respond respond) const {
  const RouteKind kind =
      classify_route(request.path(), routes_.metrics_path, static_cast<bool>(routes_.metrics));
  if (kind == RouteKind::kApi) {
    if (!routes_.api) return respond(net::problem_response(503, "the API is not running"));
    return routes_.api(std::move(request), std::move(respond));
  }
  if (kind == RouteKind::kInbound && routes_.inbound) {
    return routes_.inbound(std::move(request), std::move(respond));
  }
  if (kind == RouteKind::kProxy && routes_.proxy) {
    return routes_.proxy(std::move(request), std::move(respond));
  }
  if (kind == RouteKind::kNotFound || kind == RouteKind::kInbound || kind == RouteKind::kProxy) {
    return respond(net::problem_response(404, "no route for this path"));
  }
  if (kind == RouteKind::kConsole) {
    if (!routes_.console) return respond(net::problem_response(404, "no route for this path"));
    return respond(console_response(request));
  }
  if (!is_get(request)) return respond(method_not_allowed());
  switch (kind) {
    case RouteKind::kHealth:
      return respond(json_response(200, R"({"status":"ok"})"));
    case RouteKind::kReady:
      return respond(readiness_response(routes_.readiness));
    case RouteKind::kMetrics:
      return respond(metrics_response(routes_.metrics));
    default:
      return respond(net::problem_response(404, "no route for this path"));
  }
}

}  // namespace hookd::app
