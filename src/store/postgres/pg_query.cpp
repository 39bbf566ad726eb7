#include "store/postgres/pg_query.hpp"

namespace hookd::store::postgres {

Result<Rows> PgQuery::run(PgConnection& conn) const {
  Params params;
  for (const auto& v : values()) std::visit([&](const auto& x) { params.add(x); }, v);
  return conn.query(sql(), params);
}

}  // namespace hookd::store::postgres
