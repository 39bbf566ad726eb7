// The shared filter/paging SELECT builder (`store/select_query.hpp`) with SQLite's `?`
// marks, prepared and bound on a connection. Thread-safety: a plain value type.
#pragma once

#include <string>

#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/select_query.hpp"
#include "store/sqlite/connection.hpp"

namespace hookd::store::sqlite {

// How this dialect tests membership of a messages JSON list (store/list_filters.hpp).
inline constexpr JsonMembership kJsonMembership{
    .channel = "EXISTS (SELECT 1 FROM json_each(messages.channels) WHERE value = ?)",
    .tag = "EXISTS (SELECT 1 FROM json_each(messages.tags) WHERE value = ?)",
};

class Query : public SelectQuery {
 public:
  explicit Query(std::string select_from) : SelectQuery(std::move(select_from), Marks::kQuestion) {}

  Result<Stmt> prepare(Connection& conn) const;
};

}  // namespace hookd::store::sqlite
