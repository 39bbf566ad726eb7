#include "store/row_codec.hpp"

#include <nlohmann/json.hpp>

namespace hookd::store {
namespace {

bool continuation(std::string_view s, std::size_t i) {
  return i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80;
}

// How a UTF-8 sequence starting with `lead` goes on: its length (0: `lead` cannot start one)
// and the range of its second byte (RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF).
struct Utf8Lead {
  std::size_t length = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
};

Utf8Lead utf8_lead(unsigned char lead) {
  if (lead < 0x80) return {1};
  if (lead >= 0xC2 && lead <= 0xDF) return {2};
  if (lead == 0xE0) return {3, 0xA0};
  if (lead == 0xED) return {3, 0x80, 0x9F};
  if (lead >= 0xE1 && lead <= 0xEF) return {3};
  if (lead == 0xF0) return {4, 0x90};
  if (lead >= 0xF1 && lead <= 0xF3) return {4};
  if (lead == 0xF4) return {4, 0x80, 0x8F};
  return {};
}

// As strict as the JSON writer, so a string that passes is written unchanged.
bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const Utf8Lead lead = utf8_lead(static_cast<unsigned char>(s[i]));
    if (lead.length == 0 || i + lead.length > s.size()) return false;
    if (lead.length > 1) {
      const auto second = static_cast<unsigned char>(s[i + 1]);
      if (second < lead.lo || second > lead.hi) return false;
      for (std::size_t k = 2; k < lead.length; ++k) {
        if (!continuation(s, i + k)) return false;
      }
    }
    i += lead.length;
  }
  return true;
}

// Each byte as the code point of the same number (ISO-8859-1 to UTF-8).
std::string latin1_to_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char ch : bytes) {
    const auto b = static_cast<unsigned char>(ch);
    if (b < 0x80) {
      out += ch;
    } else {
      out += static_cast<char>(0xC0 | (b >> 6));
      out += static_cast<char>(0x80 | (b & 0x3F));
    }
  }
  return out;
}

// The inverse of latin1_to_utf8 (code points above U+00FF cannot come from it: kept as is).
std::string utf8_to_latin1(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if ((b == 0xC2 || b == 0xC3) && continuation(text, i + 1)) {
      out +=
          static_cast<char>(((b & 0x03) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3F));
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

constexpr std::string_view kLatin1 = "latin1";

}  // namespace

std::optional<std::string> encode_list(const std::optional<std::vector<std::string>>& list) {
  if (!list) return std::nullopt;
  return encode_list(*list);
}

std::string encode_list(const std::vector<std::string>& list) {
  return nlohmann::json(list).dump();
}

std::optional<std::vector<std::string>> decode_list(const std::optional<std::string>& json) {
  if (!json) return std::nullopt;
  auto parsed = nlohmann::json::parse(*json, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) return std::vector<std::string>{};
  std::vector<std::string> out;
  for (const auto& item : parsed) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::string encode_headers(const Headers& headers) { return nlohmann::json(headers).dump(); }

Headers decode_headers(const std::string& json) {
  auto parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  Headers out;
  if (!parsed.is_object()) return out;
  for (const auto& [k, v] : parsed.items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

std::string encode_header_pairs(const HeaderPairs& headers) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, value] : headers) {
    if (valid_utf8(name) && valid_utf8(value)) {
      out.push_back({name, value});
    } else {
      out.push_back({latin1_to_utf8(name), latin1_to_utf8(value), kLatin1});
    }
  }
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

HeaderPairs decode_header_pairs(const std::string& json) {
  auto parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  HeaderPairs out;
  if (!parsed.is_array()) return out;
  for (const auto& pair : parsed) {
    if (!pair.is_array() || pair.size() < 2 || !pair[0].is_string() || !pair[1].is_string()) {
      continue;
    }
    auto name = pair[0].get<std::string>();
    auto value = pair[1].get<std::string>();
    if (pair.size() > 2 && pair[2].is_string() && pair[2].get<std::string>() == kLatin1) {
      name = utf8_to_latin1(name);
      value = utf8_to_latin1(value);
    }
    out.emplace_back(std::move(name), std::move(value));
  }
  return out;
}

}  // namespace hookd::store
