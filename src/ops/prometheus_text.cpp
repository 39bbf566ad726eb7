#include "ops/prometheus_text.hpp"

#include <charconv>
#include <cmath>

namespace hookd::ops::prom {
namespace {

bool is_alpha_(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool valid_metric_name(std::string_view name) {
  if (name.empty() || !(is_alpha_(name[0]) || name[0] == ':')) return false;
  for (char c : name) {
    if (!(is_alpha_(c) || is_ascii_digit(c) || c == ':')) return false;
  }
  return true;
}

bool valid_label_name(std::string_view name) {
  if (name.empty() || !is_alpha_(name[0]) || name.starts_with("__")) return false;
  for (char c : name) {
    if (!(is_alpha_(c) || is_ascii_digit(c))) return false;
  }
  return true;
}

std::string escape_help(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_double(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

std::string format_labels(const std::vector<std::string>& names,
                          const std::vector<std::string>& values, std::string_view extra_name,
                          std::string_view extra_value) {
  if (names.empty() && extra_name.empty()) return {};
  std::string out = "{";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += names[i];
    out += "=\"";
    out += escape_label_value(values[i]);
    out += '"';
  }
  if (!extra_name.empty()) {
    if (!names.empty()) out += ',';
    out += extra_name;
    out += "=\"";
    out += escape_label_value(extra_value);
    out += '"';
  }
  out += '}';
  return out;
}

}  // namespace hookd::ops::prom
