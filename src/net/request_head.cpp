#include "net/request_head.hpp"

namespace hookd::net {
namespace {

using Verdict = RequestLineCheck::Verdict;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// RFC 9110 §5.6.2 tchar.
bool is_tchar(char c) {
  if (is_alpha(c) || is_digit(c)) return true;
  constexpr std::string_view kSymbols = "!#$%&'*+-.^_`|~";
  return kSymbols.find(c) != std::string_view::npos;
}

// As Beast's request-target characters: any octet but CTLs, SP and DEL.
bool is_target_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u > 0x20 && u != 0x7f;
}

// RFC 3986 reg-name characters (unreserved, pct-encoded's '%', sub-delims).
bool is_reg_name_char(char c) {
  if (is_alpha(c) || is_digit(c)) return true;
  constexpr std::string_view kOthers = "-._~%!$&'()*+,;=";
  return kOthers.find(c) != std::string_view::npos;
}

RequestLineCheck malformed(std::string reason) {
  RequestLineCheck check;
  check.verdict = Verdict::kMalformed;
  check.reason = std::move(reason);
  return check;
}

RequestLineCheck incomplete() { return {}; }

// "HTTP/" DIGIT "." DIGIT CRLF from `at`; `check` gets the verdict.
RequestLineCheck check_version(std::string_view bytes, std::size_t at) {
  constexpr std::string_view kName = "HTTP/";
  for (std::size_t i = 0; i < kName.size(); ++i) {
    if (at + i >= bytes.size()) return incomplete();
    if (bytes[at + i] != kName[i]) return malformed("the request line does not end in HTTP/x.y");
  }
  std::size_t p = at + kName.size();
  const char pattern[] = {'d', '.', 'd', '\r', '\n'};
  for (std::size_t i = 0; i < sizeof pattern; ++i) {
    if (p + i >= bytes.size()) return incomplete();
    const char c = bytes[p + i];
    const bool ok = pattern[i] == 'd' ? is_digit(c) : c == pattern[i];
    if (!ok) {
      return malformed(i < 3 ? "the HTTP version is not HTTP/<digit>.<digit>"
                             : "the request line does not end with CRLF");
    }
  }
  RequestLineCheck check;
  if (bytes[p] != '1') {
    check.verdict = Verdict::kVersionNotSupported;
    check.reason = "HTTP/" + std::string(bytes.substr(p, 3)) + " is not supported; use HTTP/1.1";
    return check;
  }
  check.verdict = Verdict::kComplete;
  check.length = p + sizeof pattern;
  if (bytes[p + 2] > '1') check.minor_digit_at = p + 2;
  return check;
}

}  // namespace

RequestLineCheck check_request_line(std::string_view bytes, std::size_t max_target_bytes) {
  std::size_t p = 0;
  while (p < bytes.size() && is_tchar(bytes[p])) {
    if (++p > kMaxMethodBytes) {
      return malformed("the method is longer than " + std::to_string(kMaxMethodBytes) + " bytes");
    }
  }
  if (p == bytes.size()) return incomplete();
  if (p == 0) return malformed("the request does not start with a method");
  if (bytes[p] != ' ') return malformed("the method is not followed by one space");
  const std::size_t target = ++p;
  while (p < bytes.size() && is_target_char(bytes[p])) {
    if (++p - target > max_target_bytes) {
      RequestLineCheck check;
      check.verdict = Verdict::kTargetTooLong;
      check.reason = "request target exceeds " + std::to_string(max_target_bytes) + " bytes";
      return check;
    }
  }
  if (p == bytes.size()) return incomplete();
  if (p == target) return malformed("the request target is missing");
  if (bytes[p] != ' ') return malformed("the request target is not followed by one space");
  return check_version(bytes, p + 1);
}

std::optional<std::string> bad_field_line(std::string_view line) {
  if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) return std::nullopt;
  std::size_t p = 0;
  while (p < line.size() && is_tchar(line[p])) ++p;
  if (p == 0 || p == line.size() || line[p] != ':') {
    return std::string("a header line is not 'name: value'");
  }
  return std::nullopt;
}

bool valid_host_value(std::string_view value) {
  std::size_t p = 0;
  if (!value.empty() && value.front() == '[') {  // IP-literal
    const auto close = value.find(']');
    if (close == std::string_view::npos || close == 1) return false;
    for (std::size_t i = 1; i < close; ++i) {
      if (!is_reg_name_char(value[i]) && value[i] != ':') return false;
    }
    p = close + 1;
  } else {
    while (p < value.size() && is_reg_name_char(value[p])) ++p;
  }
  if (p == value.size()) return true;
  if (value[p] != ':') return false;
  for (++p; p < value.size(); ++p) {
    if (!is_digit(value[p])) return false;
  }
  return true;
}

}  // namespace hookd::net
