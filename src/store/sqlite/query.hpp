// A tiny builder for the SELECTs whose WHERE clause depends on optional filters (lists with
// filters and cursor paging). Produces SQL text with `?` placeholders plus the values to
// bind, so the statement cache still sees a small, fixed set of SQL strings.
// Thread-safety: a plain value type.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "hookd/result.hpp"
#include "store/paging.hpp"
#include "store/sqlite/connection.hpp"

namespace hookd::store::sqlite {

class Query {
 public:
  using Value = std::variant<std::int64_t, std::string>;

  explicit Query(std::string select_from) : sql_(std::move(select_from)) {}

  // Adds "AND <condition>" (the first one becomes WHERE) with its placeholder values.
  Query& where(std::string_view condition, std::vector<Value> values = {});
  // Cursor + order + LIMIT limit+1 (one extra row tells whether more exist).
  Query& page(const PageRequest& req, std::string_view id_column = "id");

  Result<Stmt> prepare(Connection& conn) const;
  const std::string& sql() const { return sql_; }

 private:
  std::string sql_;
  bool has_where_ = false;
  std::vector<Value> values_;
};

}  // namespace hookd::store::sqlite
