// A tiny synchronous HTTP client for end-to-end tests (libcurl easy interface): one call,
// one fresh connection, a bounded timeout, no redirects, no proxies.
// Thread-safety: http_call() may be called from any thread (one easy handle per call).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace hookd::e2e {

struct HttpReply {
  long status = 0;  // 0: no response (connection refused, timeout); see `error`
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string error;

  std::optional<std::string> header(std::string_view name) const;  // case-insensitive
  nlohmann::json json() const;  // the body parsed; a JSON null when it is not JSON
};

struct HttpCall {
  std::string method = "GET";
  std::string url;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds timeout{10'000};
};

HttpReply http_call(const HttpCall& call);

using HeaderList = std::vector<std::pair<std::string, std::string>>;
HttpReply http_get(std::string url, HeaderList headers = {},
                   std::chrono::milliseconds timeout = std::chrono::seconds(10));
HttpReply http_request(std::string method, std::string url, std::string body = {},
                       HeaderList headers = {});

}  // namespace hookd::e2e
