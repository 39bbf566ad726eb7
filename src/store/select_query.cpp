#include "store/select_query.hpp"

#include <fmt/format.h>

namespace hookd::store {

SelectQuery& SelectQuery::where(std::string_view condition, std::vector<Value> values) {
  sql_ += has_where_ ? " AND " : " WHERE ";
  has_where_ = true;
  if (marks_ == Marks::kQuestion) {
    sql_ += condition;
    for (auto& v : values) values_.push_back(std::move(v));
    return *this;
  }
  std::size_t next_value = 0;
  for (char ch : condition) {
    if (ch != '?' || next_value >= values.size()) {
      sql_ += ch;
      continue;
    }
    sql_ += mark(std::move(values[next_value++]));
  }
  return *this;
}

SelectQuery& SelectQuery::page(const PageRequest& req, std::string_view id_column) {
  if (req.iterator) {
    where(fmt::format("{} {} ?", id_column, req.descending ? "<" : ">"), {*req.iterator});
  }
  const std::string limit = mark(static_cast<std::int64_t>(req.effective_limit() + 1));
  sql_ +=
      fmt::format(" ORDER BY {} {} LIMIT {}", id_column, req.descending ? "DESC" : "ASC", limit);
  return *this;
}

std::string SelectQuery::mark(Value v) {
  values_.push_back(std::move(v));
  return marks_ == Marks::kNumbered ? fmt::format("${}", values_.size()) : "?";
}

}  // namespace hookd::store
