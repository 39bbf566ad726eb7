// Attempt log listings on SQLite (attempts are written by record_attempt).
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

Result<Page<Attempt>> list_attempts(Connection& c, std::string_view column,
                                    const std::string& value, const PageRequest& page) {
  Query q(fmt::format("SELECT {} FROM attempts", kAttemptColumns));
  q.where(fmt::format("{} = ?", column), {value}).page(page);
  HOOKD_TRY(stmt, q.prepare(c));
  HOOKD_TRY(rows, collect<Attempt>(stmt, read_attempt));
  return make_page(std::move(rows), page, [](const Attempt& a) { return a.id; });
}

}  // namespace

Result<Page<Attempt>> SqliteStore::list_attempts_by_message(const std::string& msg_id,
                                                            const PageRequest& page) {
  return read([&](Connection& c) { return list_attempts(c, "msg_id", msg_id, page); });
}

Result<Page<Attempt>> SqliteStore::list_attempts_by_endpoint(const std::string& endpoint_id,
                                                             const PageRequest& page) {
  return read([&](Connection& c) { return list_attempts(c, "endpoint_id", endpoint_id, page); });
}

}  // namespace hookd::store::sqlite
