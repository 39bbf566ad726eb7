#include "cli/audit_flags.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>

namespace hookd::cli {
namespace {

constexpr std::size_t kMaxReasonLength = 1024;  // as the API's {reason} (api/handlers_hookd)

// CLI11 checks: "" when the value is fine, else why it is not.
std::string not_blank(const std::string& value) {
  return is_blank(value) ? std::string("must not be empty or blank") : std::string();
}

std::string reason_problem(const std::string& value) {
  if (value.size() > kMaxReasonLength) {
    return "must be at most " + std::to_string(kMaxReasonLength) + " bytes";
  }
  return not_blank(value);
}

}  // namespace

bool is_blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

void add_audit_flags(CLI::App& command, std::string& reason, std::string& actor) {
  command.add_option("--reason", reason, "why (kept in the audit log; required, not blank)")
      ->required()
      ->check(CLI::Validator(reason_problem, "", "reason"));
  command
      .add_option("--actor", actor,
                  std::string("who (kept in the audit log; default: ") + kDefaultActor + ")")
      ->check(CLI::Validator(not_blank, "", "not blank"));
}

}  // namespace hookd::cli
