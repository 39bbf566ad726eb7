// BusinessKeyTemplate: the source's `business_key` template ("delivery:{/data/order_id}"):
// literal text with {/json/pointer} placeholders, rendered against an event's JSON body.
// The rendered key goes to the app as the forward's Idempotency-Key, so the app can protect
// the business operation separately from event-id dedup (A11).
// Pure. Thread-safety: immutable after parse(); share freely.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"

namespace hookd::inbound {

// A JSON value as key text: strings as they are, integers and booleans in JSON form;
// nullopt for null, objects, arrays and missing values.
std::optional<std::string> scalar_text(const nlohmann::json& value);

// The value at a JSON pointer ("/data/id"), or nullptr when absent or the pointer is bad.
const nlohmann::json* at_pointer(const nlohmann::json& document, std::string_view pointer);

class BusinessKeyTemplate {
 public:
  // kInvalidArgument for unbalanced braces or a placeholder that is not a JSON pointer.
  static Result<BusinessKeyTemplate> parse(std::string_view text);

  // The key, or nullopt when a placeholder's value is missing or not a scalar (the caller
  // falls back to "<source>:<event id>").
  std::optional<std::string> render(const nlohmann::json& document) const;

 private:
  struct Part {
    bool is_pointer = false;
    std::string text;  // literal text, or the JSON pointer
  };
  std::vector<Part> parts_;
};

}  // namespace hookd::inbound
