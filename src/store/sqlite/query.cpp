#include "store/sqlite/query.hpp"

namespace hookd::store::sqlite {

Result<Stmt> Query::prepare(Connection& conn) const {
  auto stmt = conn.prepare(sql());
  if (!stmt) return stmt;
  int index = 0;
  for (const auto& v : values()) {
    ++index;
    std::visit([&](const auto& x) { stmt->bind(index, x); }, v);
  }
  return stmt;
}

}  // namespace hookd::store::sqlite
