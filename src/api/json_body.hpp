// Reading JSON request bodies safely: a nesting-depth check before parsing (so a hostile
// body cannot exhaust the stack), parse errors reported with their byte offset, and a small
// field reader that collects every validation problem (field + why) instead of stopping at
// the first; member_text finds a member's exact bytes in the body text (the message
// payload is kept as the caller wrote it, SPEC §3, A38). Times are read in the wire format
// (wire/time.hpp). Thread-safety: pure functions; a Fields object is used by one thread.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/problem.hpp"
#include "hookd/result.hpp"

namespace hookd::api {

// Parses `body` as a JSON object. Errors: empty body, nesting deeper than `max_depth`,
// malformed JSON (detail names the byte offset), not an object. All 400.
std::expected<nlohmann::json, ApiError> parse_json_object(std::string_view body, int max_depth);

// The exact text of the top-level member `name` of `object_text`, a JSON object that
// parse_json_object accepted: its value from the first byte to the last (for an object,
// from `{` to the matching `}`, inner whitespace included), without a DOM round trip.
// nullopt when absent. A repeated name yields the last one, as the parser keeps it; a name
// written with escapes ("pay\u006coad") matches by its decoded value. On text that is not
// valid JSON the answer is unspecified but stays inside `object_text`.
std::optional<std::string_view> member_text(std::string_view object_text, std::string_view name);

// Typed access to the fields of one JSON object. Absent and null fields read as nullopt;
// a present field of the wrong type or out of range adds a FieldError and reads as nullopt.
class Fields {
 public:
  explicit Fields(const nlohmann::json& object) : object_(object) {}

  bool present(std::string_view name) const;   // present and not null
  bool contains(std::string_view name) const;  // present, possibly null

  std::optional<std::string> string(std::string_view name, std::size_t max_length = 1024);
  std::string required_string(std::string_view name, std::size_t max_length = 1024);
  // As required_string, and not only whitespace (an operator's reason for an audited action).
  std::string required_text(std::string_view name, std::size_t max_length = 1024);
  std::optional<std::int64_t> integer(std::string_view name, std::int64_t min, std::int64_t max);
  std::optional<bool> boolean(std::string_view name);
  std::optional<std::vector<std::string>> string_list(std::string_view name,
                                                      std::size_t max_items = 1000,
                                                      std::size_t max_length = 256);
  std::optional<std::map<std::string, std::string>> string_map(std::string_view name);
  // A JSON object, returned serialized (re-serialized: for hookd's own fields, not payloads).
  std::optional<std::string> object_text(std::string_view name);
  // True when the field is a JSON object (its exact text: member_text on the body).
  bool object(std::string_view name);
  std::optional<std::int64_t> time(std::string_view name);

  void add_error(std::string field, std::string message);
  const std::vector<FieldError>& errors() const { return errors_; }
  bool ok() const { return errors_.empty(); }

 private:
  const nlohmann::json* find(std::string_view name) const;
  const nlohmann::json& object_;
  std::vector<FieldError> errors_;
};

// Svix uids and event type names: 1-256 of [a-zA-Z0-9-_.]; adds a FieldError for `field`
// otherwise (nothing when `value` is absent).
void check_svix_name(Fields& f, const std::string& field, const std::optional<std::string>& value);

// Svix 1.99.1's `throttleRate` and its deprecated alias `rateLimit` (one limit, messages per
// second, 1-1000000) of an EndpointIn or ApplicationIn into `limit`. Both given with
// different values: a FieldError on `throttleRate`; a null one is ignored when the other has
// a value. With `patch` only the given names count (both absent: `limit` unchanged; both
// null: cleared).
void read_throttle_rate(Fields& f, std::optional<std::int64_t>& limit, bool patch);

}  // namespace hookd::api
