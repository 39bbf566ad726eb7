// EventFields: what the gateway reads from a verified request to store it in the inbox:
// the event id (dedup key, from a header or a JSON pointer; CloudEvents: source + id in
// binary or structured mode), and from the JSON body the entity key, sequence, depends_on,
// state and the business key (template). Only called after verification succeeded.
// Pure. Thread-safety: stateless functions.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "inbound/source.hpp"
#include "net/http_types.hpp"

namespace hookd::inbound {

inline constexpr std::size_t kMaxEventIdBytes = 512;

struct EventFields {
  std::string event_id;
  std::optional<std::string> business_key;  // rendered template; nullopt = fall back
  std::optional<std::string> entity_key;
  std::optional<std::int64_t> sequence;
  std::vector<std::string> depends_on;
  std::optional<std::string> state;
  std::optional<std::int64_t> event_time_ms;  // the sender's timestamp, when the scheme has one
};

// True when the body is a CloudEvents structured-mode request (its Content-Type).
bool is_structured_cloudevent(const net::HttpHeaders& headers);

// Parses `body` as JSON with at most `max_depth` nesting; nullopt when it is not JSON or too
// deep (the depth is checked before parsing, so a hostile body cannot exhaust the stack).
std::optional<nlohmann::json> parse_json_bounded(std::string_view body, int max_depth);

// kInvalidArgument (→ 400) when the event id is missing or too long, or when the body must be
// JSON (a pointer is configured) and is not. The message says what is missing.
Result<EventFields> extract_fields(const Source& source, const net::HttpHeaders& headers,
                                   std::string_view body, int max_depth);

// The fields that come from the JSON body alone (entity, sequence, depends_on, state,
// business key), for a stored payload. Missing ones stay empty.
void read_body_fields(const Source& source, const nlohmann::json& body, EventFields& out);

}  // namespace hookd::inbound
