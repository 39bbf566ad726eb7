// The flags every audited CLI action shares (`hookd inbox replay`, `hookd dlq replay|discard`):
// a required, non-blank --reason (at most 1024 bytes, as in the API) and an --actor (default
// "cli"), both kept in the audit log.
// A blank reason or actor is a usage error (exit 2) caught while parsing, so nothing is
// written.
// Thread-safety: call from main only.
#pragma once

#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace hookd::cli {

inline constexpr const char* kDefaultActor = "cli";

// True when `text` is empty or only whitespace.
bool is_blank(std::string_view text);

// Adds `--reason TEXT` (required, not blank) and `--actor NAME` (not blank; `actor` keeps its
// current value, normally kDefaultActor, when the flag is absent) to `command`.
void add_audit_flags(CLI::App& command, std::string& reason, std::string& actor);

}  // namespace hookd::cli
