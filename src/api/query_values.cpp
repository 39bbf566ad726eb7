#include "api/query_values.hpp"

#include <charconv>

#include "wire/time.hpp"

namespace hookd::api {

std::vector<std::string> query_values(const net::HttpRequest& request, std::string_view name) {
  std::vector<std::string> out;
  std::string_view q = request.query();
  while (!q.empty()) {
    const auto amp = q.find('&');
    const auto pair = q.substr(0, amp);
    q = amp == std::string_view::npos ? std::string_view{} : q.substr(amp + 1);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) != name || eq == std::string_view::npos) continue;
    if (auto v = net::percent_decode(pair.substr(eq + 1), true)) {
      std::string_view rest = *v;
      while (!rest.empty()) {
        const auto comma = rest.find(',');
        if (auto item = rest.substr(0, comma); !item.empty()) out.emplace_back(item);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      }
    }
  }
  return out;
}

std::expected<void, ApiError> read_time_window(const net::HttpRequest& request,
                                               std::optional<std::int64_t>& since,
                                               std::optional<std::int64_t>& before) {
  for (const auto* name : {"after", "before"}) {
    auto text = request.query_param(name);
    if (!text) continue;
    auto ms = wire::parse_time(*text);
    if (!ms) {
      return std::unexpected(query_validation_error(
          {{name, "must be an RFC 3339 time such as 2024-01-01T00:00:00Z"}}));
    }
    (std::string_view(name) == "after" ? since : before) = *ms;
  }
  return {};
}

std::expected<std::optional<int>, ApiError> int_param(const net::HttpRequest& request,
                                                      const char* name,
                                                      std::initializer_list<int> allowed) {
  auto text = request.query_param(name);
  if (!text) return std::nullopt;
  int value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec == std::errc{} && end == text->data() + text->size()) {
    for (int a : allowed) {
      if (a == value) return value;
    }
  }
  std::string list;
  for (int a : allowed) list += (list.empty() ? "" : ", ") + std::to_string(a);
  return std::unexpected(query_validation_error({{name, "must be one of " + list}}));
}

}  // namespace hookd::api
