#include "config/values.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "config/units.hpp"

namespace hookd::config {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::unexpected<std::string> expected_got(std::string_view expected, const toml::node& node) {
  return std::unexpected("expected " + std::string(expected) + ", got " + describe_type(node));
}

// Applies `parse_one` to every element of a TOML array, naming the failing index.
template <class T, class F>
Parsed list_from_toml(const toml::node& node, std::vector<T>& out, std::string_view what,
                      F parse_one) {
  const auto* array = node.as_array();
  if (array == nullptr) return expected_got("a list of " + std::string(what), node);
  std::vector<T> items;
  for (std::size_t i = 0; i < array->size(); ++i) {
    T item{};
    if (auto ok = parse_one(*array->get(i), item); !ok) {
      return std::unexpected("item " + std::to_string(i) + ": " + ok.error());
    }
    items.push_back(std::move(item));
  }
  out = std::move(items);
  return {};
}

// Comma-separated text, or a TOML array literal when it starts with '['.
template <class T>
Parsed list_from_text(std::string_view text, std::vector<T>& out) {
  text = trim(text);
  if (text.starts_with('[')) {
    try {
      const toml::table wrapper = toml::parse("v = " + std::string(text));
      return from_toml(*wrapper.get("v"), out);
    } catch (const toml::parse_error&) {
      return std::unexpected(
          std::string("is not a valid TOML array; write a,b,c or [\"a\", \"b\"]"));
    }
  }
  std::vector<T> items;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto part = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (part.empty()) continue;
    T item{};
    if (auto ok = from_text(part, item); !ok) {
      return std::unexpected("item " + std::to_string(items.size()) + ": " + ok.error());
    }
    items.push_back(std::move(item));
  }
  out = std::move(items);
  return {};
}

Parsed token_from_toml(const toml::node& node, ApiToken& out) {
  const std::string shape = "a table { name = \"...\", token = \"...\" }";
  const auto* table = node.as_table();
  if (table == nullptr) return expected_got(shape, node);
  for (const auto& [key, value] : *table) {
    if (key.str() != "name" && key.str() != "token") {
      return std::unexpected("unknown key \"" + std::string(key.str()) + "\"; expected " + shape);
    }
  }
  const auto name = table->get_as<std::string>("name");
  const auto token = table->get_as<std::string>("token");
  if (name == nullptr || token == nullptr) return std::unexpected("expected " + shape);
  out = ApiToken{name->get(), token->get()};
  return {};
}

}  // namespace

std::string describe_type(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "a list";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date/time";
  }
}

Parsed from_toml(const toml::node& node, std::string& out) {
  const auto* text = node.as_string();
  if (text == nullptr) return expected_got("a string", node);
  out = text->get();
  return {};
}

Parsed from_toml(const toml::node& node, bool& out) {
  const auto* value = node.as_boolean();
  if (value == nullptr) return expected_got("true or false", node);
  out = value->get();
  return {};
}

Parsed from_toml(const toml::node& node, int& out) {
  const auto* value = node.as_integer();
  if (value == nullptr) return expected_got("an integer", node);
  if (value->get() < std::numeric_limits<int>::min() ||
      value->get() > std::numeric_limits<int>::max()) {
    return std::unexpected(std::string("integer is too large"));
  }
  out = static_cast<int>(value->get());
  return {};
}

Parsed from_toml(const toml::node& node, Duration& out) {
  if (const auto* number = node.as_integer()) {
    const std::string n = std::to_string(number->get());
    return std::unexpected("expected a duration string with a unit, got the integer " + n +
                           "; write \"" + n + "s\" or \"" + n + "ms\"");
  }
  const auto* text = node.as_string();
  if (text == nullptr) return expected_got("a duration string such as \"3s\"", node);
  return from_text(text->get(), out);
}

Parsed size_from_toml(const toml::node& node, std::uint64_t& out) {
  if (const auto* number = node.as_integer()) {
    if (number->get() < 0) return std::unexpected(std::string("a size cannot be negative"));
    out = static_cast<std::uint64_t>(number->get());
    return {};
  }
  const auto* text = node.as_string();
  if (text == nullptr) return expected_got("a byte count or a size string such as \"16KiB\"", node);
  return size_from_text(text->get(), out);
}

Parsed from_toml(const toml::node& node, std::vector<std::string>& out) {
  return list_from_toml(node, out, "strings",
                        [](const toml::node& n, std::string& s) { return from_toml(n, s); });
}

Parsed from_toml(const toml::node& node, std::vector<Duration>& out) {
  return list_from_toml(node, out, "durations",
                        [](const toml::node& n, Duration& d) { return from_toml(n, d); });
}

Parsed from_toml(const toml::node& node, std::vector<ApiToken>& out) {
  return list_from_toml(node, out, "tokens", token_from_toml);
}

Parsed from_text(std::string_view text, std::string& out) {
  out = std::string(text);
  return {};
}

Parsed from_text(std::string_view text, bool& out) {
  const std::string value = lower(trim(text));
  if (value == "true" || value == "1" || value == "yes" || value == "on") {
    out = true;
  } else if (value == "false" || value == "0" || value == "no" || value == "off") {
    out = false;
  } else {
    return std::unexpected(std::string("expected true or false (also 1/0, yes/no, on/off)"));
  }
  return {};
}

Parsed from_text(std::string_view text, int& out) {
  text = trim(text);
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size()) {
    return std::unexpected(std::string("expected an integer"));
  }
  out = value;
  return {};
}

Parsed from_text(std::string_view text, Duration& out) {
  auto value = parse_duration(trim(text));
  if (!value) return std::unexpected(value.error());
  out = *value;
  return {};
}

Parsed size_from_text(std::string_view text, std::uint64_t& out) {
  auto value = parse_size(trim(text));
  if (!value) return std::unexpected(value.error());
  out = *value;
  return {};
}

Parsed from_text(std::string_view text, std::vector<std::string>& out) {
  return list_from_text(text, out);
}

Parsed from_text(std::string_view text, std::vector<Duration>& out) {
  return list_from_text(text, out);
}

Parsed from_text(std::string_view text, std::vector<ApiToken>& out) {
  std::vector<std::string> entries;
  if (auto ok = list_from_text(text, entries); !ok) return ok;
  std::vector<ApiToken> tokens;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto colon = entries[i].find(':');
    if (colon == std::string::npos) {
      return std::unexpected("item " + std::to_string(i) +
                             ": write name:token (the name is what the audit log shows)");
    }
    tokens.push_back({entries[i].substr(0, colon), entries[i].substr(colon + 1)});
  }
  out = std::move(tokens);
  return {};
}

}  // namespace hookd::config
