// Attempt log listings on SQLite, filtered in the query (attempts are written by
// record_attempt).
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
Result<Page<Attempt>> SqliteStore::list_attempts(const AttemptFilter& filter,
                                                 const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<Attempt>> {
    Query q(fmt::format("SELECT {} FROM attempts", kAttemptColumns));
    filter_attempts(q, filter, kJsonMembership);
    q.page(page);
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<Attempt>(stmt, read_attempt));
    return make_page(std::move(rows), page, [](const Attempt& a) { return a.id; });
  });
}

}  // namespace hookd::store::sqlite
