// Raw JSON spans: see raw_json.hpp.
#include "reconcile/raw_json.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace hookd::reconcile {
namespace {

constexpr std::size_t kNone = std::string_view::npos;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view s, std::size_t at) {
  while (at < s.size() && is_space(s[at])) ++at;
  return at;
}

// Just past the string token that starts at s[at] ('"'); kNone when it is not closed.
std::size_t end_of_string(std::string_view s, std::size_t at) {
  for (++at; at < s.size(); ++at) {
    if (s[at] == '\\') {
      ++at;
    } else if (s[at] == '"') {
      return at + 1;
    }
  }
  return kNone;
}

// Just past the value that starts at s[at]; kNone when there is none. Containers are skipped
// by counting brackets outside strings (the text is valid, so they pair up).
std::size_t end_of_value(std::string_view s, std::size_t at) {
  if (at >= s.size()) return kNone;
  if (s[at] == '"') return end_of_string(s, at);
  if (s[at] == '{' || s[at] == '[') {
    std::size_t depth = 0;
    while (at < s.size()) {
      const char c = s[at];
      if (c == '"') {
        at = end_of_string(s, at);
        if (at == kNone) return kNone;
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return at + 1;
      }
      ++at;
    }
    return kNone;
  }
  const std::size_t start = at;  // a number, true, false or null
  while (at < s.size() && !is_space(s[at]) && s[at] != ',' && s[at] != ']' && s[at] != '}') ++at;
  return at == start ? kNone : at;
}

// A member name as the object means it (escapes decoded); `token` includes the quotes.
std::optional<std::string> member_name(std::string_view token) {
  const auto inner = token.substr(1, token.size() - 2);
  if (inner.find('\\') == kNone) return std::string(inner);
  const auto decoded = nlohmann::json::parse(token, nullptr, false);
  if (!decoded.is_string()) return std::nullopt;
  return decoded.get<std::string>();
}

// RFC 6901 reference tokens ("~1" is "/", "~0" is "~"); nullopt for a malformed pointer.
std::optional<std::vector<std::string>> reference_tokens(std::string_view pointer) {
  std::vector<std::string> out;
  if (pointer.empty()) return out;
  if (pointer.front() != '/') return std::nullopt;
  std::size_t at = 1;
  for (;;) {
    const auto end = pointer.find('/', at);
    const auto raw = pointer.substr(at, end == kNone ? kNone : end - at);
    std::string token;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        token.push_back(raw[i]);
      } else if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token.push_back(raw[++i] == '1' ? '/' : '~');
      } else {
        return std::nullopt;
      }
    }
    out.push_back(std::move(token));
    if (end == kNone) return out;
    at = end + 1;
  }
}

// The value of the last member named `name` of the object `s` (starting with '{').
std::optional<std::string_view> member(std::string_view s, const std::string& name) {
  std::optional<std::string_view> found;
  std::size_t at = skip_space(s, 1);
  while (at < s.size() && s[at] == '"') {
    const auto name_end = end_of_string(s, at);
    if (name_end == kNone) return std::nullopt;
    const auto this_name = member_name(s.substr(at, name_end - at));
    at = skip_space(s, name_end);
    if (at >= s.size() || s[at] != ':') return std::nullopt;
    at = skip_space(s, at + 1);
    const auto value_end = end_of_value(s, at);
    if (value_end == kNone) return std::nullopt;
    if (this_name && *this_name == name) found = s.substr(at, value_end - at);
    at = skip_space(s, value_end);
    if (at < s.size() && s[at] == ',') at = skip_space(s, at + 1);
  }
  return found;
}

// The elements of the array `s` (starting with '[').
std::optional<std::vector<std::string_view>> elements(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t at = skip_space(s, 1);
  while (at < s.size() && s[at] != ']') {
    const auto value_end = end_of_value(s, at);
    if (value_end == kNone) return std::nullopt;
    out.push_back(s.substr(at, value_end - at));
    at = skip_space(s, value_end);
    if (at < s.size() && s[at] == ',') at = skip_space(s, at + 1);
  }
  if (at >= s.size()) return std::nullopt;
  return out;
}

std::optional<std::size_t> array_index(const std::string& token) {
  if (token.empty() || token.size() > 9 || token.find_first_not_of("0123456789") != kNone ||
      (token.size() > 1 && token[0] == '0')) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(std::stoul(token));
}

}  // namespace

std::optional<std::string_view> raw_at_pointer(std::string_view json, std::string_view pointer) {
  const auto tokens = reference_tokens(pointer);
  if (!tokens) return std::nullopt;
  const auto start = skip_space(json, 0);
  const auto end = end_of_value(json, start);
  if (end == kNone) return std::nullopt;
  std::string_view node = json.substr(start, end - start);
  for (const auto& token : *tokens) {
    if (node.front() == '{') {
      auto next = member(node, token);
      if (!next) return std::nullopt;
      node = *next;
    } else if (node.front() == '[') {
      const auto index = array_index(token);
      auto items = elements(node);
      if (!index || !items || *index >= items->size()) return std::nullopt;
      node = (*items)[*index];
    } else {
      return std::nullopt;
    }
  }
  return node;
}

std::optional<std::vector<std::string_view>> raw_array_elements(std::string_view json,
                                                                std::string_view pointer) {
  const auto node = raw_at_pointer(json, pointer);
  if (!node || node->front() != '[') return std::nullopt;
  return elements(*node);
}

}  // namespace hookd::reconcile
