// Names of the config enums as written in TOML and environment variables, both ways.
// The first name listed for a value is its canonical spelling; later ones are aliases.
// Thread-safety: constant tables; safe from any thread.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "config/config.hpp"

namespace hookd::config {

template <class E>
struct EnumName {
  std::string_view name;
  E value;
};

std::span<const EnumName<SqliteSynchronous>> enum_names(SqliteSynchronous);
std::span<const EnumName<Scheme>> enum_names(Scheme);
std::span<const EnumName<HmacAlgorithm>> enum_names(HmacAlgorithm);
std::span<const EnumName<SignatureEncoding>> enum_names(SignatureEncoding);
std::span<const EnumName<LogLevel>> enum_names(LogLevel);
std::span<const EnumName<LogFormat>> enum_names(LogFormat);
std::span<const EnumName<ReconcileRepair>> enum_names(ReconcileRepair);
std::span<const EnumName<SinceFormat>> enum_names(SinceFormat);

// Exact (case-sensitive) match against every name and alias.
template <class E>
std::optional<E> parse_enum(std::string_view text) {
  for (const auto& entry : enum_names(E{})) {
    if (entry.name == text) return entry.value;
  }
  return std::nullopt;
}

template <class E>
std::string_view enum_name(E value) {
  for (const auto& entry : enum_names(E{})) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

// "a", "b" or "c": the accepted spellings, for error messages.
template <class E>
std::string enum_choices() {
  std::string out;
  const auto names = enum_names(E{});
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += '"';
    out += names[i].name;
    out += '"';
  }
  return out;
}

// Where a source's event id comes from when `event_id` is empty: a header name, a JSON
// pointer, or "" when the scheme has none (then `event_id` is required; for "hmac" the
// [source.hmac] id_header is used if set).
std::string_view default_event_id(Scheme scheme);

}  // namespace hookd::config
