// Typed values from a TOML node (the file) or from text (environment variables, flags).
// Text syntax: strings as is; bools true/false/1/0/yes/no/on/off; integers in decimal;
// durations and sizes as in config/units.hpp; enums by name; lists comma-separated
// ("a, b") or as a TOML array ("[\"a,1\", \"b\"]"); API tokens as "name:token,name:token".
// Error messages say what was expected and never contain the value (it may be a secret).
// Thread-safety: pure functions.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "config/config.hpp"
#include "config/names.hpp"

namespace hookd::config {

using Parsed = std::expected<void, std::string>;

// "a string", "an integer", ... for "expected X, got Y" messages.
std::string describe_type(const toml::node& node);

Parsed from_toml(const toml::node& node, std::string& out);
Parsed from_toml(const toml::node& node, bool& out);
Parsed from_toml(const toml::node& node, int& out);
Parsed from_toml(const toml::node& node, Duration& out);
Parsed from_toml(const toml::node& node, std::vector<std::string>& out);
Parsed from_toml(const toml::node& node, std::vector<Duration>& out);
Parsed from_toml(const toml::node& node, std::vector<ApiToken>& out);
Parsed size_from_toml(const toml::node& node, std::uint64_t& out);

Parsed from_text(std::string_view text, std::string& out);
Parsed from_text(std::string_view text, bool& out);
Parsed from_text(std::string_view text, int& out);
Parsed from_text(std::string_view text, Duration& out);
Parsed from_text(std::string_view text, std::vector<std::string>& out);
Parsed from_text(std::string_view text, std::vector<Duration>& out);
Parsed from_text(std::string_view text, std::vector<ApiToken>& out);
Parsed size_from_text(std::string_view text, std::uint64_t& out);

template <class E>
requires std::is_enum_v<E> Parsed from_text(std::string_view text, E& out) {
  const auto value = parse_enum<E>(text);
  if (!value) return std::unexpected("must be one of " + enum_choices<E>());
  out = *value;
  return {};
}

template <class E>
requires std::is_enum_v<E> Parsed from_toml(const toml::node& node, E& out) {
  const auto* text = node.as_string();
  if (text == nullptr) {
    return std::unexpected("expected a string, one of " + enum_choices<E>() + "; got " +
                           describe_type(node));
  }
  return from_text(text->get(), out);
}

}  // namespace hookd::config
