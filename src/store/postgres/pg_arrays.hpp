// PostgreSQL array literals ('{"a",NULL,"b"}') for passing a whole batch as a few array
// parameters (UPDATE ... FROM unnest($1::text[], ...)): one round trip per batch instead of
// several per row. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hookd::store::postgres {

// Builds one array literal element by element.
class ArrayLiteral {
 public:
  void add(std::string_view text);  // quoted and escaped
  void add(std::int64_t v);
  void add(bool v) { add_raw(v ? "t" : "f"); }
  void add(std::nullopt_t) { add_raw("NULL"); }
  template <class T>
  void add(const std::optional<T>& v) {
    if (v) {
      add(*v);
    } else {
      add(std::nullopt);
    }
  }
  void add_bytes(std::string_view bytes);  // bytea element in hex form
  std::string str() const { return text_ + "}"; }

 private:
  void add_raw(std::string_view raw);
  std::string text_ = "{";
  bool empty_ = true;
};

}  // namespace hookd::store::postgres
