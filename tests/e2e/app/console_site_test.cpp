// The console's static site (app/console_site.hpp): the right asset with its Content-Type and
// cache headers, a redirect for /console, 404 for anything not in the compiled-in table
// (traversal included), GET only. Mutations checked: serving by prefix match instead of the
// exact name fails PathsOutsideTheTableAre404; dropping the Content-Type switch fails
// AssetsCarryTheirContentType.
#include "app/console_site.hpp"

#include <gtest/gtest.h>

#include "app/router.hpp"

namespace hookd::app {
namespace {

net::HttpResponse get(std::string target, std::string method = "GET") {
  net::HttpRequest request;
  request.method = std::move(method);
  request.target = std::move(target);
  return console_response(request);
}

TEST(ConsoleSite, IndexIsServedAtTheSlashAndConsoleRedirects) {
  const net::HttpResponse index = get("/console/");
  EXPECT_EQ(index.status, 200);
  EXPECT_NE(index.body.find("<title>hookd console</title>"), std::string::npos);
  EXPECT_EQ(index.headers.get("Content-Type"), "text/html; charset=utf-8");
  const net::HttpResponse bare = get("/console");
  EXPECT_EQ(bare.status, 301);
  EXPECT_EQ(bare.headers.get("Location"), "/console/");
}

TEST(ConsoleSite, AssetsCarryTheirContentType) {
  EXPECT_EQ(get("/console/console.js").headers.get("Content-Type"),
            "text/javascript; charset=utf-8");
  EXPECT_EQ(get("/console/console.css").headers.get("Content-Type"), "text/css; charset=utf-8");
  EXPECT_EQ(console_content_type("x.bin"), "application/octet-stream");
}

TEST(ConsoleSite, AssetsAreRevalidatedAndLockedToTheirOrigin) {
  const net::HttpResponse js = get("/console/console.js");
  EXPECT_EQ(js.headers.get("Cache-Control"), "no-cache");
  EXPECT_EQ(js.headers.get("X-Content-Type-Options"), "nosniff");
  EXPECT_NE(js.headers.get("Content-Security-Policy").value_or("").find("script-src 'self'"),
            std::string::npos);
}

TEST(ConsoleSite, PathsOutsideTheTableAre404) {
  for (const char* target :
       {"/console/nope.js", "/console/../README.md", "/console/%2e%2e/x", "/console/console.js/",
        "/console//console.js", "/console/index.html%00", "/console/console"}) {
    EXPECT_EQ(get(target).status, 404) << target;
  }
  EXPECT_FALSE(is_console_path("/consolex"));
  EXPECT_TRUE(is_console_path("/console/a"));
}

TEST(ConsoleSite, OnlyGetIsAllowed) {
  const net::HttpResponse post = get("/console/", "POST");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.headers.get("Allow"), "GET");
}

TEST(ConsoleSite, TheRouterSendsConsolePathsHereUnlessSwitchedOff) {
  EXPECT_EQ(classify_route("/console/", "/metrics", true), RouteKind::kConsole);
  RouterRoutes routes;
  routes.console = false;
  Router router(std::move(routes));
  net::HttpRequest request;
  request.method = "GET";
  request.target = "/console/";
  int status = 0;
  router.handle(std::move(request), [&status](net::HttpResponse r) { status = r.status; });
  EXPECT_EQ(status, 404);
}

}  // namespace
}  // namespace hookd::app
