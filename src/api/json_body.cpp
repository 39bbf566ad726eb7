#include "api/json_body.hpp"

#include <algorithm>

#include "wire/time.hpp"

namespace hookd::api {
namespace {

// The first byte offset where nesting exceeds `max_depth`, or nullopt. Strings are skipped
// so brackets inside them do not count.
std::optional<std::size_t> depth_violation(std::string_view body, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return i;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return std::nullopt;
}

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_space(std::string_view text, std::size_t i) {
  while (i < text.size() && is_json_space(text[i])) ++i;
  return i;
}

// `i` at a string's opening quote; the index after its closing quote.
std::size_t skip_string(std::string_view text, std::size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return text.size();
}

// `i` at a value's first byte; the index after its last byte.
std::size_t skip_value(std::string_view text, std::size_t i) {
  if (text[i] == '"') return skip_string(text, i);
  if (text[i] == '{' || text[i] == '[') {
    int depth = 0;
    while (i < text.size()) {
      const char c = text[i];
      if (c == '"') {
        i = skip_string(text, i);
        continue;
      }
      if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
      ++i;
    }
    return text.size();
  }
  while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' &&
         !is_json_space(text[i])) {
    ++i;
  }
  return i;
}

// `quoted`: a member name with its quotes, as written.
bool name_matches(std::string_view quoted, std::string_view name) {
  if (quoted.size() < 2) return false;
  const auto inner = quoted.substr(1, quoted.size() - 2);
  if (inner.find('\\') == std::string_view::npos) return inner == name;
  const auto decoded = nlohmann::json::parse(quoted, nullptr, false);
  return decoded.is_string() && decoded.get_ref<const std::string&>() == name;
}

const char* type_name(const nlohmann::json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

}  // namespace

std::expected<nlohmann::json, ApiError> parse_json_object(std::string_view body, int max_depth) {
  if (body.empty())
    return std::unexpected(bad_request("The request body is empty; a JSON object is required"));
  if (auto at = depth_violation(body, max_depth)) {
    return std::unexpected(bad_request("JSON nesting is deeper than the limit of " +
                                       std::to_string(max_depth) + " at byte offset " +
                                       std::to_string(*at)));
  }
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    return std::unexpected(
        bad_request("Malformed JSON at byte offset " + std::to_string(e.byte) + ": " + e.what()));
  } catch (const nlohmann::json::exception& e) {  // e.g. out_of_range 406: 1e999 overflows
    return std::unexpected(bad_request(std::string("Malformed JSON: ") + e.what()));
  }
  if (!parsed.is_object()) {
    return std::unexpected(bad_request(std::string("The request body must be a JSON object, not ") +
                                       type_name(parsed)));
  }
  return parsed;
}

std::optional<std::string_view> member_text(std::string_view text, std::string_view name) {
  std::size_t i = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;  // the parser skips a BOM too
  i = skip_space(text, i);
  if (i >= text.size() || text[i] != '{') return std::nullopt;
  std::optional<std::string_view> found;
  i = skip_space(text, i + 1);
  while (i < text.size() && text[i] == '"') {
    const std::size_t name_end = skip_string(text, i);
    const bool match = name_matches(text.substr(i, name_end - i), name);
    i = skip_space(text, name_end);
    if (i >= text.size() || text[i] != ':') return found;
    i = skip_space(text, i + 1);
    if (i >= text.size()) return found;
    const std::size_t value_end = skip_value(text, i);
    if (match) found = text.substr(i, value_end - i);
    i = skip_space(text, value_end);
    if (i < text.size() && text[i] == ',') i = skip_space(text, i + 1);
  }
  return found;
}

const nlohmann::json* Fields::find(std::string_view name) const {
  auto it = object_.find(name);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

bool Fields::present(std::string_view name) const { return find(name) != nullptr; }
bool Fields::contains(std::string_view name) const { return object_.contains(name); }

void Fields::add_error(std::string field, std::string message) {
  errors_.push_back({std::move(field), std::move(message)});
}

std::optional<std::string> Fields::string(std::string_view name, std::size_t max_length) {
  const auto* v = find(name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    add_error(std::string(name), std::string("must be a string, got ") + type_name(*v));
    return std::nullopt;
  }
  const auto& s = v->get_ref<const std::string&>();
  if (s.size() > max_length) {
    add_error(std::string(name), "must be at most " + std::to_string(max_length) + " characters");
    return std::nullopt;
  }
  return s;
}

std::string Fields::required_string(std::string_view name, std::size_t max_length) {
  if (!present(name)) {
    add_error(std::string(name), "is required");
    return {};
  }
  auto s = string(name, max_length);
  if (s && s->empty()) add_error(std::string(name), "must not be empty");
  return s.value_or("");
}

std::string Fields::required_text(std::string_view name, std::size_t max_length) {
  const std::size_t errors_before = errors_.size();
  std::string s = required_string(name, max_length);
  const bool blank = s.find_first_not_of(" \t\r\n\f\v") == std::string::npos;
  if (errors_.size() == errors_before && blank) add_error(std::string(name), "must not be blank");
  return s;
}

std::optional<std::int64_t> Fields::integer(std::string_view name, std::int64_t min,
                                            std::int64_t max) {
  const auto* v = find(name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number_integer()) {
    add_error(std::string(name), std::string("must be an integer, got ") + type_name(*v));
    return std::nullopt;
  }
  const bool too_big =
      v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(max);
  const auto n = v->get<std::int64_t>();
  if (too_big || n < min || n > max) {
    add_error(std::string(name),
              "must be between " + std::to_string(min) + " and " + std::to_string(max));
    return std::nullopt;
  }
  return n;
}

std::optional<bool> Fields::boolean(std::string_view name) {
  const auto* v = find(name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    add_error(std::string(name), std::string("must be true or false, got ") + type_name(*v));
    return std::nullopt;
  }
  return v->get<bool>();
}

std::optional<std::vector<std::string>> Fields::string_list(std::string_view name,
                                                            std::size_t max_items,
                                                            std::size_t max_length) {
  const auto* v = find(name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_array()) {
    add_error(std::string(name), std::string("must be an array of strings, got ") + type_name(*v));
    return std::nullopt;
  }
  if (v->size() > max_items) {
    add_error(std::string(name), "must have at most " + std::to_string(max_items) + " items");
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const auto& item = (*v)[i];
    const std::string field = std::string(name) + "[" + std::to_string(i) + "]";
    if (!item.is_string() || item.get_ref<const std::string&>().empty()) {
      add_error(field, "must be a non-empty string");
      return std::nullopt;
    }
    if (item.get_ref<const std::string&>().size() > max_length) {
      add_error(field, "must be at most " + std::to_string(max_length) + " characters");
      return std::nullopt;
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::optional<std::map<std::string, std::string>> Fields::string_map(std::string_view name) {
  const auto* v = find(name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_object()) {
    add_error(std::string(name), std::string("must be an object of strings, got ") + type_name(*v));
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : v->items()) {
    if (!value.is_string()) {
      add_error(std::string(name) + "." + key, "must be a string");
      return std::nullopt;
    }
    out[key] = value.get<std::string>();
  }
  return out;
}

std::optional<std::string> Fields::object_text(std::string_view name) {
  if (!object(name)) return std::nullopt;
  return find(name)->dump();
}

bool Fields::object(std::string_view name) {
  const auto* v = find(name);
  if (v == nullptr) return false;
  if (!v->is_object()) {
    add_error(std::string(name), std::string("must be a JSON object, got ") + type_name(*v));
    return false;
  }
  return true;
}

std::optional<std::int64_t> Fields::time(std::string_view name) {
  auto text = string(name, 64);
  if (!text) return std::nullopt;
  auto ms = wire::parse_time(*text);
  if (!ms) {
    add_error(std::string(name), "must be an ISO-8601 time such as 2024-01-01T00:00:00Z");
  }
  return ms;
}

void check_svix_name(Fields& f, const std::string& field, const std::optional<std::string>& value) {
  if (!value) return;
  const auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  };
  if (value->empty() || value->size() > 256 ||
      !std::all_of(value->begin(), value->end(), name_char)) {
    f.add_error(field, "must be 1 to 256 characters of letters, digits, '-', '_' or '.'");
  }
}

void read_throttle_rate(Fields& f, std::optional<std::int64_t>& limit, bool patch) {
  constexpr std::int64_t kMaxRateLimit = 1'000'000;
  const bool rate_given = !patch || f.contains("rateLimit");
  const bool throttle_given = !patch || f.contains("throttleRate");
  if (!rate_given && !throttle_given) return;
  const auto rate = rate_given ? f.integer("rateLimit", 1, kMaxRateLimit) : std::nullopt;
  const auto throttle = throttle_given ? f.integer("throttleRate", 1, kMaxRateLimit) : std::nullopt;
  if (rate && throttle && *rate != *throttle) {
    f.add_error("throttleRate",
                "differs from rateLimit (its deprecated name): give one, or the same value");
  }
  limit = throttle ? throttle : rate;
}

}  // namespace hookd::api
