#include "config/units.hpp"

#include "config/syntax.hpp"

#include <array>
#include <cctype>
#include <limits>

namespace hookd::config {
namespace {

struct Unit {
  std::string_view name;
  std::uint64_t factor;
};

constexpr std::array<Unit, 5> kDurationUnits{{
    {"ms", 1},
    {"s", 1000},
    {"m", 60'000},
    {"h", 3'600'000},
    {"d", 86'400'000},
}};

constexpr std::array<Unit, 4> kSizeUnits{{
    {"B", 1},
    {"KiB", kKiB},
    {"MiB", kMiB},
    {"GiB", kGiB},
}};

constexpr std::uint64_t kMaxDurationMs = std::uint64_t{100} * 365 * 86'400'000;  // 100 years
constexpr std::uint64_t kMaxSize = std::uint64_t{1} << 50;                       // 1 PiB

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads the digits at text[pos...]; false on overflow or no digits.
bool read_number(std::string_view text, std::size_t& pos, std::uint64_t& out) {
  const std::size_t start = pos;
  out = 0;
  while (pos < text.size() && is_digit(text[pos])) {
    if (out > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return false;
    out = out * 10 + static_cast<std::uint64_t>(text[pos] - '0');
    ++pos;
  }
  return pos > start;
}

std::string_view read_unit(std::string_view text, std::size_t& pos) {
  const std::size_t start = pos;
  while (pos < text.size() && std::isalpha(static_cast<unsigned char>(text[pos]))) ++pos;
  return text.substr(start, pos - start);
}

template <std::size_t N>
const Unit* find_unit(const std::array<Unit, N>& units, std::string_view name) {
  for (const auto& unit : units) {
    if (unit.name == name) return &unit;
  }
  return nullptr;
}

}  // namespace

std::expected<Duration, std::string> parse_duration(std::string_view text) {
  const std::string hint =
      "; write a number with a unit (ms, s, m, h, d), e.g. \"3s\" or \"1h30m\"";
  if (text == "0") return Duration{0};
  if (text.empty()) return std::unexpected("empty duration" + hint);
  std::uint64_t total = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::uint64_t number = 0;
    if (!read_number(text, pos, number)) {
      return std::unexpected("invalid duration " + quoted(text) + hint);
    }
    const std::string_view unit_name = read_unit(text, pos);
    const Unit* unit = find_unit(kDurationUnits, unit_name);
    if (unit_name.empty() && pos < text.size()) {
      return std::unexpected("invalid duration " + quoted(text) + hint);
    }
    if (unit == nullptr) {
      const std::string what = unit_name.empty() ? "a unit is missing in "
                                                 : "unknown unit " + quoted(unit_name) + " in ";
      return std::unexpected(what + quoted(text) + hint);
    }
    if (number > kMaxDurationMs / unit->factor || total + number * unit->factor > kMaxDurationMs) {
      return std::unexpected("duration " + quoted(text) + " is too large");
    }
    total += number * unit->factor;
  }
  return Duration{static_cast<Duration::rep>(total)};
}

std::expected<std::uint64_t, std::string> parse_size(std::string_view text) {
  const std::string hint =
      "; write a byte count or a number with a unit (B, KiB, MiB, GiB), e.g. \"16KiB\"";
  std::size_t pos = 0;
  std::uint64_t number = 0;
  if (!read_number(text, pos, number))
    return std::unexpected("invalid size " + quoted(text) + hint);
  while (pos < text.size() && text[pos] == ' ') ++pos;
  const std::string_view unit_name = read_unit(text, pos);
  if (pos != text.size()) return std::unexpected("invalid size " + quoted(text) + hint);
  const Unit* unit = unit_name.empty() ? &kSizeUnits[0] : find_unit(kSizeUnits, unit_name);
  if (unit == nullptr) {
    return std::unexpected("unknown size unit " + quoted(unit_name) + " in " + quoted(text) +
                           "; use B, KiB, MiB or GiB (1024-based), e.g. \"1MiB\"");
  }
  if (number > kMaxSize / unit->factor)
    return std::unexpected("size " + quoted(text) + " is too large");
  return number * unit->factor;
}

std::string format_duration(Duration value) {
  auto ms = static_cast<std::uint64_t>(value.count());
  if (ms == 0) return "0";
  std::string out;
  for (auto it = kDurationUnits.rbegin(); it != kDurationUnits.rend(); ++it) {
    if (ms >= it->factor) {
      out += std::to_string(ms / it->factor) + std::string(it->name);
      ms %= it->factor;
    }
  }
  return out;
}

std::string format_size(std::uint64_t bytes) {
  for (auto it = kSizeUnits.rbegin(); it != kSizeUnits.rend() - 1; ++it) {
    if (bytes != 0 && bytes % it->factor == 0) {
      return std::to_string(bytes / it->factor) + std::string(it->name);
    }
  }
  return std::to_string(bytes);
}

}  // namespace hookd::config
