// Reading query results on SQLite: collect every row, or exactly one, with one of the shared
// row readers (`store/row_codec.hpp`, which take a `Stmt` as their row). Also brings the
// shared column lists and audit documents every statement file uses. Thread-safety: pure
// functions over a statement the caller owns.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "store/audit_state.hpp"
#include "store/row_codec.hpp"
#include "store/row_columns.hpp"
#include "store/sqlite/connection.hpp"

namespace hookd::store::sqlite {

// Runs a prepared query and collects every row with `reader`.
template <class T, class Reader>
Result<std::vector<T>> collect(Stmt& s, Reader reader) {
  std::vector<T> out;
  for (;;) {
    auto row = s.step();
    if (!row) return std::unexpected(row.error());
    if (!*row) return out;
    out.push_back(reader(s));
  }
}

// Runs a prepared query expected to return one row; kNotFound (with `what`) otherwise.
template <class T, class Reader>
Result<T> single(Stmt& s, Reader reader, std::string_view what) {
  auto row = s.step();
  if (!row) return std::unexpected(row.error());
  if (!*row) return fail(ErrorCode::kNotFound, std::string(what) + " not found");
  return reader(s);
}

}  // namespace hookd::store::sqlite
