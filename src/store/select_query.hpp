// A tiny builder for the SELECTs whose WHERE clause depends on optional filters (lists with
// filters and cursor paging), shared by both backends. Conditions are written with `?`;
// the SQL text comes out with the backend's marks (`?` for SQLite, `$1..$N` numbered as the
// values are added for PostgreSQL) next to the values to bind, so each backend's statement
// cache still sees a small, fixed set of SQL strings. Thread-safety: a plain value type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "store/paging.hpp"

namespace hookd::store {

class SelectQuery {
 public:
  using Value = std::variant<std::int64_t, std::string>;
  enum class Marks { kQuestion, kNumbered };

  SelectQuery(std::string select_from, Marks marks) : sql_(std::move(select_from)), marks_(marks) {}

  // Adds "AND <condition>" (the first one becomes WHERE) with its placeholder values.
  SelectQuery& where(std::string_view condition, std::vector<Value> values = {});
  // Cursor + order + LIMIT limit+1 (one extra row tells whether more exist).
  SelectQuery& page(const PageRequest& req, std::string_view id_column = "id");

  const std::string& sql() const { return sql_; }
  const std::vector<Value>& values() const { return values_; }

 private:
  std::string mark(Value v);  // takes the value, returns its placeholder

  std::string sql_;
  Marks marks_;
  bool has_where_ = false;
  std::vector<Value> values_;
};

}  // namespace hookd::store
