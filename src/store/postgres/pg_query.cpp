#include "store/postgres/pg_query.hpp"

#include <fmt/format.h>

namespace hookd::store::postgres {

PgQuery& PgQuery::where(std::string_view condition, std::vector<Value> values) {
  sql_ += has_where_ ? " AND " : " WHERE ";
  has_where_ = true;
  std::size_t next_value = 0;
  for (char ch : condition) {
    if (ch != '?' || next_value >= values.size()) {
      sql_ += ch;
      continue;
    }
    std::visit([&](const auto& v) { params_.add(v); }, values[next_value++]);
    sql_ += fmt::format("${}", params_.size());
  }
  return *this;
}

PgQuery& PgQuery::page(const PageRequest& req, std::string_view id_column) {
  if (req.iterator) {
    where(fmt::format("{} {} ?", id_column, req.descending ? "<" : ">"), {*req.iterator});
  }
  params_.add(static_cast<std::int64_t>(req.effective_limit() + 1));
  sql_ += fmt::format(" ORDER BY {} {} LIMIT ${}", id_column, req.descending ? "DESC" : "ASC",
                      params_.size());
  return *this;
}

}  // namespace hookd::store::postgres
