// Classification of delivery responses by HTTP status, with per-endpoint overrides.
#include <charconv>

#include "hookd/retry.hpp"

namespace hookd {
namespace {

struct ActionName {
  StatusAction action;
  std::string_view name;
};

constexpr ActionName kActionNames[] = {
    {StatusAction::kSuccess, "success"},
    {StatusAction::kRetry, "retry"},
    {StatusAction::kDeadLetter, "dead_letter"},
    {StatusAction::kDeadLetterAlert, "dead_letter_alert"},
    {StatusAction::kDisableEndpoint, "disable_endpoint"},
};

std::optional<int> parse_status_code(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  if (value < 100 || value > 599) return std::nullopt;
  return value;
}

// "4xx" or "4XX" -> 4.
std::optional<int> parse_status_class(std::string_view text) {
  if (text.size() != 3 || text[0] < '1' || text[0] > '5') return std::nullopt;
  const bool xx = (text[1] == 'x' || text[1] == 'X') && (text[2] == 'x' || text[2] == 'X');
  if (!xx) return std::nullopt;
  return text[0] - '0';
}

}  // namespace

std::string_view to_string(StatusAction action) {
  for (const auto& entry : kActionNames) {
    if (entry.action == action) return entry.name;
  }
  return "unknown";
}

std::optional<StatusAction> parse_status_action(std::string_view name) {
  for (const auto& entry : kActionNames) {
    if (entry.name == name) return entry.action;
  }
  return std::nullopt;
}

Status StatusOverrides::add(std::string_view selector, std::string_view action) {
  const auto parsed_action = parse_status_action(action);
  if (!parsed_action) {
    return fail(ErrorCode::kInvalidArgument,
                "unknown status action \"" + std::string(action) +
                    "\" (success, retry, dead_letter, dead_letter_alert, disable_endpoint)");
  }
  if (const auto status = parse_status_code(selector)) {
    by_status[*status] = *parsed_action;
    return {};
  }
  if (const auto status_class = parse_status_class(selector)) {
    by_class[*status_class] = *parsed_action;
    return {};
  }
  return fail(ErrorCode::kInvalidArgument, "status selector \"" + std::string(selector) +
                                               "\" must be a code 100-599 or a class like 4xx");
}

StatusAction default_status_action(int status) {
  if (status >= 200 && status <= 299) return StatusAction::kSuccess;
  if (status == 401 || status == 403) return StatusAction::kDeadLetterAlert;
  if (status == 410) return StatusAction::kDisableEndpoint;
  if (status == 408 || status == 429) return StatusAction::kRetry;
  if (status >= 400 && status <= 499) return StatusAction::kDeadLetter;
  // 5xx; 3xx (redirects are not followed); 1xx and out-of-range codes from a confused
  // peer: failures that may recover, bounded by max attempts and age.
  return StatusAction::kRetry;
}

StatusAction classify_status(int status, const StatusOverrides& overrides) {
  if (const auto it = overrides.by_status.find(status); it != overrides.by_status.end()) {
    return it->second;
  }
  if (status >= 100 && status <= 599) {
    if (const auto it = overrides.by_class.find(status / 100); it != overrides.by_class.end()) {
      return it->second;
    }
  }
  return default_status_action(status);
}

}  // namespace hookd
