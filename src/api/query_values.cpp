#include "api/query_values.hpp"

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

}  // namespace hookd::api
