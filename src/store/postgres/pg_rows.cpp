#include "store/postgres/pg_rows.hpp"

#include <fmt/format.h>

namespace hookd::store::postgres {

std::string qualify(std::string_view columns, std::string_view table) {
  std::string out;
  while (!columns.empty()) {
    const auto comma = columns.find(',');
    std::string_view col = columns.substr(0, comma);
    while (!col.empty() && col.front() == ' ') col.remove_prefix(1);
    if (!out.empty()) out += ", ";
    out += fmt::format("{}.{}", table, col);
    if (comma == std::string_view::npos) break;
    columns.remove_prefix(comma + 1);
  }
  return out;
}

std::string placeholders(int n, int first) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += ", ";
    out += fmt::format("${}", first + i);
  }
  return out;
}

}  // namespace hookd::store::postgres
