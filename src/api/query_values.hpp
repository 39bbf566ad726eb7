// Reading list query parameters: every value of a repeated one (`event_types=a&event_types=b`,
// also comma-separated, percent-decoded), and the `after`/`before` time window the message
// and attempt lists share, and an integer parameter out of a fixed set. Thread-safety: pure
// functions.
#pragma once

#include <cstdint>
#include <expected>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/problem.hpp"
#include "net/http_types.hpp"

namespace hookd::api {

std::vector<std::string> query_values(const net::HttpRequest& request, std::string_view name);

// `after` (inclusive) into `since` and `before` (exclusive) into `before`, as RFC 3339 times
// in unix ms; an unreadable one is a 422 located in the query. Absent ones leave their field.
std::expected<void, ApiError> read_time_window(const net::HttpRequest& request,
                                               std::optional<std::int64_t>& since,
                                               std::optional<std::int64_t>& before);

// The selectors message and attempt lists share: event_types, channel, tag and the
// after/before window, read into a filter that has those fields.
template <class Filter>
std::expected<void, ApiError> read_message_selectors(const net::HttpRequest& request,
                                                     Filter& filter) {
  if (auto types = query_values(request, "event_types"); !types.empty()) {
    filter.event_types = std::move(types);
  }
  if (auto channel = request.query_param("channel")) filter.channel = *channel;
  if (auto tag = request.query_param("tag")) filter.tag = *tag;
  return read_time_window(request, filter.since, filter.before);
}

// An integer query parameter that must be one of `allowed`; nullopt when absent, a 422 located
// in the query when it is another value.
std::expected<std::optional<int>, ApiError> int_param(const net::HttpRequest& request,
                                                      const char* name,
                                                      std::initializer_list<int> allowed);

}  // namespace hookd::api
