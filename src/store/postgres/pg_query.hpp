// A tiny builder for the SELECTs whose WHERE clause depends on optional filters (lists with
// filters and cursor paging) on PostgreSQL: conditions are written with `?`, numbered $1..$N
// as they are added, so the prepared-statement cache still sees a small set of SQL texts.
// Thread-safety: a plain value type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "hookd/result.hpp"
#include "store/paging.hpp"
#include "store/postgres/pg_connection.hpp"

namespace hookd::store::postgres {

class PgQuery {
 public:
  using Value = std::variant<std::int64_t, std::string>;

  explicit PgQuery(std::string select_from) : sql_(std::move(select_from)) {}

  // Adds "AND <condition>" (the first one becomes WHERE); each `?` takes the next value.
  PgQuery& where(std::string_view condition, std::vector<Value> values = {});
  // Cursor + order + LIMIT limit+1 (one extra row tells whether more exist).
  PgQuery& page(const PageRequest& req, std::string_view id_column = "id");

  Result<Rows> run(PgConnection& conn) const { return conn.query(sql_, params_); }

 private:
  std::string sql_;
  bool has_where_ = false;
  Params params_;
};

}  // namespace hookd::store::postgres
