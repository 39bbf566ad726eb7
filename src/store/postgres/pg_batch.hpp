// Batches that name the same row twice (attempt reports, inbox status changes): a set-based
// statement (UPDATE ... FROM unnest(...)) changes a row once, so only each row's first
// mention is sent; the later ones are answered kConflict by the caller, as when the items
// ran one after the other (the first one released the lease).
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <set>
#include <string_view>
#include <vector>

namespace hookd::store::postgres {

template <class T>
struct FirstMentions {
  std::vector<T> firsts;       // what the statement is sent
  std::vector<bool> repeated;  // per item of the batch
};

// `key(item)`: the row the item names (a string_view into the item).
template <class T, class Key>
FirstMentions<T> first_mentions(const std::vector<T>& items, Key key) {
  FirstMentions<T> out;
  out.repeated.resize(items.size(), false);
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < items.size(); ++i) {
    out.repeated[i] = !seen.insert(key(items[i])).second;
    if (!out.repeated[i]) out.firsts.push_back(items[i]);
  }
  return out;
}

}  // namespace hookd::store::postgres
