#include "app/router.hpp"

#include <gtest/gtest.h>

#include <optional>

namespace hookd::app {
namespace {

net::HttpRequest request(std::string method, std::string target) {
  net::HttpRequest r;
  r.method = std::move(method);
  r.target = std::move(target);
  return r;
}

// Calls the router and returns the response it gave (synchronously in these tests).
net::HttpResponse call(const Router& router, net::HttpRequest r) {
  std::optional<net::HttpResponse> got;
  router.handle(std::move(r), [&got](net::HttpResponse response) { got = std::move(response); });
  EXPECT_TRUE(got.has_value());
  return got.value_or(net::HttpResponse{});
}

TEST(RouterTest, ClassifiesPaths) {
  EXPECT_EQ(classify_route("/api/v1/app", "/metrics", true), RouteKind::kApi);
  EXPECT_EQ(classify_route("/api", "/metrics", true), RouteKind::kApi);
  EXPECT_EQ(classify_route("/apix", "/metrics", true), RouteKind::kNotFound);
  EXPECT_EQ(classify_route("/healthz", "/metrics", true), RouteKind::kHealth);
  EXPECT_EQ(classify_route("/readyz", "/metrics", true), RouteKind::kReady);
  EXPECT_EQ(classify_route("/metrics", "/metrics", true), RouteKind::kMetrics);
  EXPECT_EQ(classify_route("/metrics", "/metrics", false), RouteKind::kNotFound);
  EXPECT_EQ(classify_route("/internal/metrics", "/internal/metrics", true), RouteKind::kMetrics);
}

TEST(RouterTest, HandsApiRequestsToTheApiWithTheirQuery) {
  std::string seen;
  RouterRoutes routes;
  routes.api = [&seen](net::HttpRequest r, Respond respond) {
    seen = r.target;
    net::HttpResponse response;
    response.status = 201;
    respond(std::move(response));
  };
  Router router(std::move(routes));
  EXPECT_EQ(call(router, request("POST", "/api/v1/app?limit=2")).status, 201);
  EXPECT_EQ(seen, "/api/v1/app?limit=2");
}

TEST(RouterTest, ApiNotRunningIs503) {
  Router router(RouterRoutes{});
  EXPECT_EQ(call(router, request("GET", "/api/v1/app")).status, 503);
}

TEST(RouterTest, ReadinessReflectsTheCheck) {
  bool ready = false;
  RouterRoutes routes;
  routes.readiness = [&ready]() -> Status {
    if (ready) return {};
    return fail(ErrorCode::kUnavailable, "database \"locked\"");
  };
  Router router(std::move(routes));
  const net::HttpResponse down = call(router, request("GET", "/readyz"));
  EXPECT_EQ(down.status, 503);
  EXPECT_NE(down.body.find(R"(database \"locked\")"), std::string::npos) << down.body;
  ready = true;
  EXPECT_EQ(call(router, request("GET", "/readyz")).status, 200);
  EXPECT_EQ(call(router, request("GET", "/healthz")).status, 200);
}

TEST(RouterTest, MetricsOnlyWhenEnabledAndOnlyGet) {
  RouterRoutes routes;
  routes.metrics = [] { return std::string("x_total 1\n"); };
  routes.metrics_path = "/m";
  Router router(std::move(routes));
  const net::HttpResponse metrics = call(router, request("GET", "/m?x=1"));
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.body, "x_total 1\n");
  EXPECT_EQ(call(router, request("POST", "/m")).status, 405);
  EXPECT_EQ(call(router, request("GET", "/metrics")).status, 404);
  Router off(RouterRoutes{});
  EXPECT_EQ(call(off, request("GET", "/metrics")).status, 404);
}

}  // namespace
}  // namespace hookd::app
