// The shared filter/paging SELECT builder (`store/select_query.hpp`) with PostgreSQL's
// numbered `$N` marks, run as a prepared statement on a connection.
// Thread-safety: a plain value type.
#pragma once

#include <string>

#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/postgres/pg_connection.hpp"
#include "store/select_query.hpp"

namespace hookd::store::postgres {

// How this dialect tests membership of a messages JSON list (store/list_filters.hpp).
inline constexpr JsonMembership kJsonMembership{
    .channel =
        "EXISTS (SELECT 1 FROM json_array_elements_text(messages.channels::json) ch WHERE ch = ?)",
    .tag = "EXISTS (SELECT 1 FROM json_array_elements_text(messages.tags::json) tg WHERE tg = ?)",
};

class PgQuery : public SelectQuery {
 public:
  explicit PgQuery(std::string select_from)
      : SelectQuery(std::move(select_from), Marks::kNumbered) {}

  Result<Rows> run(PgConnection& conn) const;
};

}  // namespace hookd::store::postgres
