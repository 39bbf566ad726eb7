#include "store/feed_cursor.hpp"

#include "hookd/encoding.hpp"

namespace hookd::store {

std::string encode_feed_cursor(std::string_view cursor) {
  std::string out = base64_encode(as_bytes(cursor));
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& ch : out) {
    if (ch == '+') ch = '-';
    if (ch == '/') ch = '_';
  }
  return out;
}

std::optional<std::string> decode_feed_cursor(std::string_view iterator) {
  std::string text(iterator);
  for (char& ch : text) {
    if (ch == '+' || ch == '/' || ch == '=') return std::nullopt;  // base64url, unpadded
    if (ch == '-') ch = '+';
    if (ch == '_') ch = '/';
  }
  while (text.size() % 4 != 0) text += '=';
  auto bytes = base64_decode(text);
  if (!bytes) return std::nullopt;
  return std::string(bytes->begin(), bytes->end());
}

}  // namespace hookd::store
