#include "api/router.hpp"

#include <cassert>
#include <set>

namespace hookd::api {
namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < path.size()) {
    if (path[start] == '/') {
      ++start;
      continue;
    }
    const auto end = path.find('/', start);
    const auto stop = end == std::string_view::npos ? path.size() : end;
    out.push_back(path.substr(start, stop - start));
    start = stop;
  }
  return out;
}

bool is_param(std::string_view segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

// Literal segment count when `route` matches `parts`, else -1.
int match_score(const Route& route, const std::vector<std::string_view>& parts) {
  if (route.segments.size() != parts.size()) return -1;
  int literals = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (is_param(route.segments[i])) continue;
    if (route.segments[i] != parts[i]) return -1;
    ++literals;
  }
  return literals;
}

}  // namespace

const std::string& Call::param(std::string_view name) const {
  auto it = params.find(name);
  assert(it != params.end() && "route has no such parameter");
  return it->second;
}

void Router::add(std::string method, std::string pattern, Handler handler, bool requires_auth,
                 bool feed_token) {
  Route route{std::move(method),  std::move(pattern), {},
              std::move(handler), requires_auth,      feed_token};
  for (auto s : split_path(route.pattern)) route.segments.emplace_back(s);
  routes_.push_back(std::move(route));
}

std::expected<Router::Match, ApiError> Router::match(std::string_view method,
                                                     std::string_view path) const {
  const auto parts = split_path(path);
  const Route* best = nullptr;
  int best_score = -1;
  std::set<std::string> allowed;
  for (const auto& route : routes_) {
    const int score = match_score(route, parts);
    if (score < 0) continue;
    allowed.insert(route.method);
    if (route.method == method && score > best_score) {
      best = &route;
      best_score = score;
    }
  }
  if (best == nullptr && allowed.empty()) {
    return std::unexpected(not_found("No route for " + std::string(path)));
  }
  if (best == nullptr) {
    std::string allow;
    for (const auto& m : allowed) allow += (allow.empty() ? "" : ", ") + m;
    ApiError error = api_error(
        405, "method_not_allowed",
        std::string(method) + " is not allowed on " + std::string(path) + "; allowed: " + allow);
    error.headers.push_back({"Allow", allow});
    return std::unexpected(std::move(error));
  }
  Match match{best, {}};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& seg = best->segments[i];
    if (!is_param(seg)) continue;
    auto decoded = net::percent_decode(parts[i]);
    if (!decoded) return std::unexpected(bad_request("Malformed percent-escape in the path"));
    match.params.emplace(seg.substr(1, seg.size() - 2), std::move(*decoded));
  }
  return match;
}

}  // namespace hookd::api
