// The shared filter/paging SELECT builder (`store/select_query.hpp`) with PostgreSQL's
// numbered `$N` marks, run as a prepared statement on a connection.
// Thread-safety: a plain value type.
#pragma once

#include <string>

#include "hookd/result.hpp"
#include "store/postgres/pg_connection.hpp"
#include "store/select_query.hpp"

namespace hookd::store::postgres {

class PgQuery : public SelectQuery {
 public:
  explicit PgQuery(std::string select_from)
      : SelectQuery(std::move(select_from), Marks::kNumbered) {}

  Result<Rows> run(PgConnection& conn) const;
};

}  // namespace hookd::store::postgres
