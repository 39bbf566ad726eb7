#include "ops/masking.hpp"

#include <algorithm>

namespace hookd::ops {
namespace {

// Splits an RFC 6901 pointer into unescaped tokens ("~1" → "/", "~0" → "~").
Result<std::vector<std::string>> parse_pointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer[0] != '/') {
    return fail(ErrorCode::kInvalidArgument,
                "masking pointer must start with '/': " + std::string(pointer));
  }
  std::string token;
  for (std::size_t i = 1; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(std::move(token));
      token.clear();
    } else if (pointer[i] == '~') {
      const char next = i + 1 < pointer.size() ? pointer[i + 1] : '\0';
      if (next != '0' && next != '1') {
        return fail(ErrorCode::kInvalidArgument,
                    "bad '~' escape in masking pointer: " + std::string(pointer));
      }
      token += next == '0' ? '~' : '/';
      ++i;
    } else {
      token += pointer[i];
    }
  }
  return tokens;
}

}  // namespace

Masker::Masker() = default;

Result<Masker> Masker::create(const MaskingConfig& config) {
  Masker masker;
  masker.mask_personal_data_ = config.mask_personal_data;
  for (const auto& pointer : config.json_pointers) {
    auto tokens = parse_pointer(pointer);
    if (!tokens) return std::unexpected(tokens.error());
    masker.pointers_.push_back(std::move(*tokens));
  }
  return masker;
}

std::string Masker::mask_text(std::string_view text) const {
  return mask_personal_data_ ? ops::mask_text(text) : redact_secrets(text);
}

bool Masker::pointer_matches(const std::vector<std::string>& path) const {
  return std::any_of(pointers_.begin(), pointers_.end(), [&](const Pointer& p) {
    if (p.size() != path.size()) return false;
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (p[i] != "*" && p[i] != path[i]) return false;
    }
    return true;
  });
}

void Masker::walk(nlohmann::json& node, std::vector<std::string>& path) const {
  if (!pointers_.empty() && pointer_matches(path)) {
    node = kMasked;
    return;
  }
  if (node.is_object()) {
    for (auto& [key, value] : node.items()) {
      if (is_secret_name(key)) {
        value = kRedacted;
        continue;
      }
      path.push_back(key);
      walk(value, path);
      path.pop_back();
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      path.push_back(std::to_string(i));
      walk(node[i], path);
      path.pop_back();
    }
  } else if (node.is_string()) {
    const auto& s = node.get_ref<const std::string&>();
    std::string masked = mask_text(s);
    if (masked != s) node = std::move(masked);
  } else if (mask_personal_data_ && (node.is_number_integer())) {
    // Phone numbers and card numbers sometimes arrive as JSON numbers.
    const std::string digits = node.dump();
    std::string masked = mask_personal_data(digits);
    if (masked != digits) node = std::move(masked);
  }
}

void Masker::mask_json_in_place(nlohmann::json& document) const {
  std::vector<std::string> path;
  walk(document, path);
}

nlohmann::json Masker::mask_json(const nlohmann::json& document) const {
  nlohmann::json copy = document;
  mask_json_in_place(copy);
  return copy;
}

std::string Masker::mask_json_text(std::string_view body) const {
  nlohmann::json document = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) return mask_text(body);
  mask_json_in_place(document);
  return document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string Masker::mask_header_value(std::string_view name, std::string_view value) const {
  return is_secret_name(name) ? std::string(kRedacted) : mask_text(value);
}

HeaderList Masker::mask_headers(const HeaderList& headers) const {
  HeaderList out;
  out.reserve(headers.size());
  for (const auto& [name, value] : headers) out.emplace_back(name, mask_header_value(name, value));
  return out;
}

}  // namespace hookd::ops
