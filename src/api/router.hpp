// Router: maps (method, path) to a handler. Patterns are slash-separated segments where
// `{name}` captures one percent-decoded segment ("/api/v1/app/{app_id}/msg/{msg_id}"). A
// trailing slash is ignored (older Svix clients send "/api/v1/app/"). When several patterns
// match, the one with more literal segments wins. No match → 404; a path that matches only
// under other methods → 405 with an Allow header.
// Thread-safety: add() during setup only; match() is const and safe from any thread.
#pragma once

#include <expected>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/api.hpp"
#include "api/problem.hpp"
#include "net/http_types.hpp"

namespace hookd::api {

// One authenticated request on its way through a handler. Handlers may move from it.
struct Call {
  net::HttpRequest request;
  std::map<std::string, std::string, std::less<>> params;
  std::string actor;  // the name of the token that authenticated the request

  const std::string& param(std::string_view name) const;
};

using Handler = std::function<void(Call& call, Respond respond)>;

struct Route {
  std::string method;
  std::string pattern;
  std::vector<std::string> segments;  // "{x}" marks a parameter
  Handler handler;
  bool requires_auth = true;
  // Also opened by the feed token of the endpoint named by its {endpoint_id} (the feed).
  bool feed_token = false;
};

class Router {
 public:
  void add(std::string method, std::string pattern, Handler handler, bool requires_auth = true,
           bool feed_token = false);

  struct Match {
    const Route* route = nullptr;
    std::map<std::string, std::string, std::less<>> params;
  };
  std::expected<Match, ApiError> match(std::string_view method, std::string_view path) const;

 private:
  std::vector<Route> routes_;
};

}  // namespace hookd::api
