// Svix-style cursor paging shared by every list operation: `{data, iterator, done}` where
// the iterator is the id of the last row returned (ids are time-sortable, so "after this
// id" is a stable cursor). Thread-safety: plain value types and pure functions.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace hookd::store {

struct PageRequest {
  static constexpr int kDefaultLimit = 50;
  static constexpr int kMaxLimit = 250;
  int limit = kDefaultLimit;
  std::optional<std::string> iterator;  // id of the last row of the previous page
  bool descending = false;              // newest first when true

  // The limit the backends use: clamped to [1, kMaxLimit].
  int effective_limit() const { return std::clamp(limit, 1, kMaxLimit); }
};

template <class T>
struct Page {
  std::vector<T> data;
  std::optional<std::string> iterator;  // pass back as PageRequest::iterator
  bool done = true;
};

// Builds a page from rows fetched with LIMIT effective_limit()+1: the extra row only tells
// that more exist. `id_of` returns a row's cursor id.
template <class T, class IdOf>
Page<T> make_page(std::vector<T> rows, const PageRequest& req, IdOf id_of) {
  Page<T> page;
  const auto limit = static_cast<std::size_t>(req.effective_limit());
  page.done = rows.size() <= limit;
  if (!page.done) rows.resize(limit);
  if (!rows.empty()) page.iterator = id_of(rows.back());
  page.data = std::move(rows);
  return page;
}

}  // namespace hookd::store
