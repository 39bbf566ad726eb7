#include "store/sqlite/query.hpp"

#include <fmt/format.h>

namespace hookd::store::sqlite {

Query& Query::where(std::string_view condition, std::vector<Value> values) {
  sql_ += has_where_ ? " AND " : " WHERE ";
  sql_ += condition;
  has_where_ = true;
  for (auto& v : values) values_.push_back(std::move(v));
  return *this;
}

Query& Query::page(const PageRequest& req, std::string_view id_column) {
  if (req.iterator) {
    where(fmt::format("{} {} ?", id_column, req.descending ? "<" : ">"), {*req.iterator});
  }
  sql_ += fmt::format(" ORDER BY {} {} LIMIT ?", id_column, req.descending ? "DESC" : "ASC");
  values_.emplace_back(static_cast<std::int64_t>(req.effective_limit() + 1));
  return *this;
}

Result<Stmt> Query::prepare(Connection& conn) const {
  auto stmt = conn.prepare(sql_);
  if (!stmt) return stmt;
  int index = 0;
  for (const auto& v : values_) {
    ++index;
    std::visit([&](const auto& x) { stmt->bind(index, x); }, v);
  }
  return stmt;
}

}  // namespace hookd::store::sqlite
