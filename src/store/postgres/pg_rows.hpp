// Reading query results on PostgreSQL (text result format): collect every row, or the first,
// with one of the shared row readers (`store/row_codec.hpp`, which take a `Row`), plus the
// SQL text helpers the statements share. Also brings the shared column lists and audit
// documents every statement file uses. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "store/audit_state.hpp"
#include "store/postgres/pg_connection.hpp"
#include "store/row_codec.hpp"
#include "store/row_columns.hpp"

namespace hookd::store::postgres {

// "t.a, t.b, ..." from "a, b, ...": a column list for statements where names are ambiguous.
std::string qualify(std::string_view columns, std::string_view table);

// "$1, $2, ..., $n" for INSERT ... VALUES.
std::string placeholders(int n, int first = 1);

template <class T, class Reader>
std::vector<T> collect(const Rows& rows, Reader reader) {
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.push_back(reader(Row{rows, i}));
  return out;
}

// The first row, or kNotFound (with `what`).
template <class T, class Reader>
Result<T> single(const Rows& rows, Reader reader, std::string_view what) {
  if (rows.size() == 0) return fail(ErrorCode::kNotFound, std::string(what) + " not found");
  return reader(Row{rows, 0});
}

}  // namespace hookd::store::postgres
