// Helpers shared by the signature schemes (see signing_internal.hpp).
#include "core/signing_internal.hpp"

namespace hookd::signing_detail {

std::unexpected<VerifyError> reject(VerifyFailure reason, std::string detail) {
  return std::unexpected(VerifyError{reason, std::move(detail)});
}

std::optional<std::int64_t> parse_unix_seconds(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::expected<std::string_view, VerifyError> read_header(const HttpHeaders& headers,
                                                         std::string_view header_name) {
  const auto value = find_header(headers, header_name);
  if (!value)
    return reject(VerifyFailure::kMissingHeader, "missing header " + std::string(header_name));
  return *value;
}

std::expected<std::int64_t, VerifyError> read_timestamp(const HttpHeaders& headers,
                                                        std::string_view header_name,
                                                        std::int64_t now_unix,
                                                        std::chrono::seconds tolerance) {
  auto text = read_header(headers, header_name);
  if (!text) return std::unexpected(std::move(text.error()));
  const auto timestamp = parse_unix_seconds(trim_spaces(*text));
  if (!timestamp) {
    return reject(VerifyFailure::kBadFormat,
                  std::string(header_name) + " is not a Unix timestamp in seconds");
  }
  const std::int64_t tol = tolerance.count();
  if (*timestamp < now_unix - tol) {
    return reject(VerifyFailure::kTimestampTooOld, std::string(header_name) + " is more than " +
                                                       std::to_string(tol) + " s in the past");
  }
  if (*timestamp > now_unix + tol) {
    return reject(VerifyFailure::kTimestampTooNew, std::string(header_name) + " is more than " +
                                                       std::to_string(tol) + " s in the future");
  }
  return *timestamp;
}

std::string_view trim_spaces(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace hookd::signing_detail
