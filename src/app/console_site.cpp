#include "app/console_site.hpp"

#include <string>

namespace hookd::app {
namespace {

// Same-origin only: the pages load nothing from elsewhere and run no inline script.
constexpr std::string_view kSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

bool ends_with(std::string_view text, std::string_view suffix) { return text.ends_with(suffix); }

net::HttpResponse redirect_to_index() {
  net::HttpResponse response;
  response.status = 301;
  response.headers.set("Location", std::string(kConsolePrefix) + "/");
  response.headers.set("Cache-Control", "no-cache");
  return response;
}

net::HttpResponse asset_response(const ConsoleAsset& asset) {
  net::HttpResponse response;
  response.headers.set("Content-Type", std::string(console_content_type(asset.name)));
  // The assets change with the binary and carry no version in their names: revalidate.
  response.headers.set("Cache-Control", "no-cache");
  response.headers.set("X-Content-Type-Options", "nosniff");
  response.headers.set("Referrer-Policy", "no-referrer");
  response.headers.set("Content-Security-Policy", std::string(kSecurityPolicy));
  response.body = std::string(asset.bytes);
  return response;
}

}  // namespace

bool is_console_path(std::string_view path) {
  return path == kConsolePrefix ||
         (path.starts_with(kConsolePrefix) && path.substr(kConsolePrefix.size()).starts_with('/'));
}

std::string_view console_content_type(std::string_view name) {
  if (ends_with(name, ".html")) return "text/html; charset=utf-8";
  if (ends_with(name, ".css")) return "text/css; charset=utf-8";
  if (ends_with(name, ".js")) return "text/javascript; charset=utf-8";
  if (ends_with(name, ".svg")) return "image/svg+xml";
  if (ends_with(name, ".png")) return "image/png";
  if (ends_with(name, ".ico")) return "image/x-icon";
  return "application/octet-stream";
}

std::optional<ConsoleAsset> find_console_asset(std::string_view path) {
  if (!is_console_path(path) || path == kConsolePrefix) return std::nullopt;
  std::string_view name = path.substr(kConsolePrefix.size() + 1);
  if (name.empty()) name = "index.html";
  // Exact names only: "..", "%2e", "/" or a query never match an entry of the table.
  for (const ConsoleAsset& asset : console_assets()) {
    if (asset.name == name) return asset;
  }
  return std::nullopt;
}

net::HttpResponse console_response(const net::HttpRequest& request) {
  if (request.method != "GET") {
    net::HttpResponse response = net::problem_response(405, "only GET is allowed here");
    response.headers.set("Allow", "GET");
    return response;
  }
  if (request.path() == kConsolePrefix) return redirect_to_index();
  const std::optional<ConsoleAsset> asset = find_console_asset(request.path());
  if (!asset) return net::problem_response(404, "no such console page");
  return asset_response(*asset);
}

}  // namespace hookd::app
