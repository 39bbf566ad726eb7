// Every value of a repeated query parameter (`event_types=a&event_types=b`, also
// comma-separated), percent-decoded. Thread-safety: a pure function.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "net/http_types.hpp"

namespace hookd::api {

std::vector<std::string> query_values(const net::HttpRequest& request, std::string_view name);

}  // namespace hookd::api
