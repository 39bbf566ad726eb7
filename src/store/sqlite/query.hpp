// The shared filter/paging SELECT builder (`store/select_query.hpp`) with SQLite's `?`
// marks, prepared and bound on a connection. Thread-safety: a plain value type.
#pragma once

#include <string>

#include "hookd/result.hpp"
#include "store/select_query.hpp"
#include "store/sqlite/connection.hpp"

namespace hookd::store::sqlite {

class Query : public SelectQuery {
 public:
  explicit Query(std::string select_from) : SelectQuery(std::move(select_from), Marks::kQuestion) {}

  Result<Stmt> prepare(Connection& conn) const;
};

}  // namespace hookd::store::sqlite
