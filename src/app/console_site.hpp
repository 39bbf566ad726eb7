// ConsoleSite: answers GET under /console (issue 16, A36) from the assets compiled into
// the binary: /console redirects to /console/, /console/ is index.html, /console/<name> is
// the asset of exactly that name (a lookup in a fixed table: no file system, so no directory
// traversal), anything else 404. The pages call the REST API with the Bearer token the
// person types in (kept in the tab's sessionStorage); the site itself needs no token.
// Pure: no I/O; tests call console_response() directly.
// Thread-safety: stateless; safe from any thread.
#pragma once

#include <optional>
#include <string_view>

#include "app/console_assets.hpp"
#include "net/http_types.hpp"

namespace hookd::app {

inline constexpr std::string_view kConsolePrefix = "/console";

// True for /console and every path under /console/.
bool is_console_path(std::string_view path);

// The Content-Type for an asset name, by its extension (application/octet-stream if unknown).
std::string_view console_content_type(std::string_view name);

// The asset a request path names, or nullopt (not one of ours).
std::optional<ConsoleAsset> find_console_asset(std::string_view path);

// The whole answer to a request under /console.
net::HttpResponse console_response(const net::HttpRequest& request);

}  // namespace hookd::app
