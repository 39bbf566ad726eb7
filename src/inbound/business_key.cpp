#include "inbound/business_key.hpp"

namespace hookd::inbound {

std::optional<std::string> scalar_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer() || value.is_number_unsigned() || value.is_boolean()) {
    return value.dump();
  }
  if (value.is_number_float()) return value.dump();
  return std::nullopt;
}

const nlohmann::json* at_pointer(const nlohmann::json& document, std::string_view pointer) {
  if (pointer.empty()) return &document;
  if (pointer.front() != '/') return nullptr;
  // nlohmann's json_pointer throws on syntax errors and on missing members; walk it here
  // without exceptions instead (RFC 6901: "~1" is "/", "~0" is "~").
  const nlohmann::json* node = &document;
  std::size_t pos = 1;
  for (;;) {
    const auto end = pointer.find('/', pos);
    std::string token(pointer.substr(pos, end == std::string_view::npos ? end : end - pos));
    for (std::size_t i = 0; (i = token.find('~', i)) != std::string::npos; ++i) {
      if (i + 1 >= token.size() || (token[i + 1] != '0' && token[i + 1] != '1')) return nullptr;
      token.replace(i, 2, token[i + 1] == '1' ? "/" : "~");
    }
    if (node->is_object()) {
      auto it = node->find(token);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      if (token.empty() || token.size() > 9 ||
          token.find_first_not_of("0123456789") != std::string::npos ||
          (token.size() > 1 && token[0] == '0')) {
        return nullptr;
      }
      const auto index = std::stoul(token);
      if (index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else {
      return nullptr;
    }
    if (end == std::string_view::npos) return node;
    pos = end + 1;
  }
}

Result<BusinessKeyTemplate> BusinessKeyTemplate::parse(std::string_view text) {
  BusinessKeyTemplate t;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto open = text.find_first_of("{}", pos);
    if (open == std::string_view::npos) break;
    const auto close = text.find('}', open);
    if (text[open] == '}' || close == std::string_view::npos) {
      return fail(ErrorCode::kInvalidArgument, "business_key template has an unbalanced brace");
    }
    const auto pointer = text.substr(open + 1, close - open - 1);
    if (!pointer.starts_with('/') || pointer.find('{') != std::string_view::npos) {
      return fail(ErrorCode::kInvalidArgument,
                  "business_key placeholders must be JSON pointers such as {/data/id}");
    }
    if (open > pos) t.parts_.push_back({false, std::string(text.substr(pos, open - pos))});
    t.parts_.push_back({true, std::string(pointer)});
    pos = close + 1;
  }
  if (pos < text.size()) t.parts_.push_back({false, std::string(text.substr(pos))});
  return t;
}

std::optional<std::string> BusinessKeyTemplate::render(const nlohmann::json& document) const {
  std::string out;
  for (const auto& part : parts_) {
    if (!part.is_pointer) {
      out += part.text;
      continue;
    }
    const auto* value = at_pointer(document, part.text);
    if (value == nullptr) return std::nullopt;
    auto text = scalar_text(*value);
    if (!text) return std::nullopt;
    out += *text;
  }
  return out;
}

}  // namespace hookd::inbound
