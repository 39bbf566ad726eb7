#include "store/postgres/pg_arrays.hpp"

namespace hookd::store::postgres {

void ArrayLiteral::add_raw(std::string_view raw) {
  if (!empty_) text_ += ',';
  empty_ = false;
  text_ += raw;
}

void ArrayLiteral::add(std::string_view text) {
  if (!empty_) text_ += ',';
  empty_ = false;
  text_ += '"';
  for (char ch : text) {
    if (ch == '"' || ch == '\\') text_ += '\\';
    text_ += ch;
  }
  text_ += '"';
}

void ArrayLiteral::add(std::int64_t v) { add_raw(std::to_string(v)); }

void ArrayLiteral::add_bytes(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (!empty_) text_ += ',';
  empty_ = false;
  text_ += "\"\\\\x";  // "\\x inside the quoted element: bytea's hex input form
  for (unsigned char b : bytes) {
    text_ += kHex[b >> 4];
    text_ += kHex[b & 0xF];
  }
  text_ += '"';
}

}  // namespace hookd::store::postgres
