// Secret redaction in free text: known key prefixes, auth schemes, secret-looking key=value
// pairs and passwords in URLs. See text_masking.hpp for the rules.
#include <algorithm>
#include <array>
#include <cctype>

#include "ops/text_masking.hpp"

namespace hookd::ops {
namespace {

bool is_word_char(char c) { return is_alnum(c) || c == '_' || c == '-'; }
bool is_space(char c) { return c == ' ' || c == '\t'; }
// Characters of API keys, base64 and bearer tokens (JWTs included).
bool is_token_char(char c) {
  return is_alnum(c) || c == '_' || c == '-' || c == '.' || c == '~' || c == '+' || c == '/' ||
         c == '=';
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::size_t skip(std::string_view s, std::size_t i, bool (*pred)(char)) {
  while (i < s.size() && pred(s[i])) ++i;
  return i;
}

constexpr std::array<std::string_view, 6> kSecretPrefixes = {"whsec_",   "whsk_",    "sk_live_",
                                                             "sk_test_", "rk_live_", "rk_test_"};

bool is_auth_scheme(std::string_view word) {
  return iequals(word, "bearer") || iequals(word, "basic");
}

// The end of an unquoted value after `key=` or `key:`. A comma ends it only when followed by
// a space or the end (so "v1,c2ln" stays whole); after ':' (header style) spaces do not end it
// ("v1,sig1 v1,sig2"), and an auth scheme after '=' takes its token along.
std::size_t unquoted_value_end(std::string_view s, std::size_t start, bool header_style) {
  auto ends_value = [&](std::size_t i) {
    const char c = s[i];
    if (c == ',') return i + 1 == s.size() || is_space(s[i + 1]);
    if (is_space(c)) return !header_style;
    return c == '\r' || c == '\n' || c == ';' || c == '&' || c == '}' || c == ']' || c == ')' ||
           c == '"' || c == '\'';
  };
  std::size_t end = start;
  while (end < s.size() && !ends_value(end)) ++end;
  while (header_style && end > start && is_space(s[end - 1])) --end;
  if (!header_style && is_auth_scheme(s.substr(start, end - start))) {
    std::size_t token = skip(s, end, is_space);
    if (token > end) end = skip(s, token, is_token_char);
  }
  return end;
}

// `key` at [begin, end) looks secret: redacts the value of `key=v`, `key: v`, `"key": "v"`.
// Returns the position after the value, or npos when no value follows.
std::size_t redact_key_value(std::string_view s, std::size_t end, std::string& out) {
  std::size_t i = end;
  if (i < s.size() && (s[i] == '"' || s[i] == '\'')) ++i;
  i = skip(s, i, is_space);
  if (i >= s.size() || (s[i] != '=' && s[i] != ':')) return std::string_view::npos;
  const bool header_style = s[i] == ':';
  i = skip(s, i + 1, is_space);
  if (i >= s.size()) return std::string_view::npos;
  std::size_t value_end;
  std::size_t after;
  if (s[i] == '"' || s[i] == '\'') {
    const char quote = s[i++];
    value_end = i;
    while (value_end < s.size() && s[value_end] != quote) value_end += s[value_end] == '\\' ? 2 : 1;
    value_end = std::min(value_end, s.size());
    after = value_end;
  } else {
    value_end = unquoted_value_end(s, i, header_style);
    after = value_end;
  }
  if (value_end == i) return std::string_view::npos;
  out.append(s.substr(end, i - end));
  out.append(kRedacted);
  return after;
}

// `scheme://user:password@` at i (pointing at "://"): redacts the password.
std::size_t redact_userinfo(std::string_view s, std::size_t i, std::string& out) {
  const std::size_t start = i + 3;
  std::size_t j = start;
  std::size_t colon = std::string_view::npos;
  while (j < s.size() && s[j] != '@' && s[j] != '/' && s[j] != '?' && s[j] != '#' &&
         !is_space(s[j]) && s[j] != '\n') {
    if (s[j] == ':' && colon == std::string_view::npos) colon = j;
    ++j;
  }
  if (j >= s.size() || s[j] != '@' || colon == std::string_view::npos)
    return std::string_view::npos;
  out.append(s.substr(i, colon + 1 - i));
  out.append(kRedacted);
  out += '@';
  return j + 1;
}

}  // namespace

bool is_secret_name(std::string_view name) {
  static constexpr std::array<std::string_view, 13> kParts = {
      "authorization", "signature", "secret",  "token",  "password",    "passwd",     "cookie",
      "credential",    "api-key",   "api_key", "apikey", "private-key", "private_key"};
  // Case-insensitive substring search without allocating: this runs for every word logged.
  auto contains = [&](std::string_view part) {
    if (part.size() > name.size()) return false;
    for (std::size_t at = 0; at + part.size() <= name.size(); ++at) {
      if ((name[at] | 0x20) == part[0] && iequals(name.substr(at, part.size()), part)) return true;
    }
    return false;
  };
  return name.size() >= 5 && std::any_of(kParts.begin(), kParts.end(), contains);
}

std::string redact_secrets(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const bool word_start = (is_alnum(s[i]) || s[i] == '_') && (i == 0 || !is_word_char(s[i - 1]));
    if (!word_start) {
      if (s.compare(i, 3, "://") == 0) {
        if (std::size_t next = redact_userinfo(s, i, out); next != std::string_view::npos) {
          i = next;
          continue;
        }
      }
      out += s[i++];
      continue;
    }
    const std::size_t end = skip(s, i, is_word_char);
    const std::string_view word = s.substr(i, end - i);
    auto prefix = std::find_if(kSecretPrefixes.begin(), kSecretPrefixes.end(),
                               [&](std::string_view p) { return word.starts_with(p); });
    if (prefix != kSecretPrefixes.end()) {
      out.append(*prefix);
      out.append(kRedacted);
      i = skip(s, end, is_token_char);
      continue;
    }
    out.append(word);
    if (is_auth_scheme(word)) {
      const std::size_t token = skip(s, end, is_space);
      if (token > end && token < s.size() && is_token_char(s[token])) {
        out.append(s.substr(end, token - end));
        out.append(kRedacted);
        i = skip(s, token, is_token_char);
        continue;
      }
    }
    if (is_secret_name(word)) {
      if (std::size_t next = redact_key_value(s, end, out); next != std::string_view::npos) {
        i = next;
        continue;
      }
    }
    i = end;
  }
  return out;
}

std::string mask_text(std::string_view text) { return mask_personal_data(redact_secrets(text)); }

}  // namespace hookd::ops
