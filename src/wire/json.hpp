// Svix-shaped JSON for hookd's records (camelCase names, ISO-8601 times, `{data, iterator,
// prevIterator, done}` pages), plus hookd's own fields (fifo, retryPolicy, timeouts,
// orderingKey/sequence, dead-letter and audit records): hookd's JSON wire format, used by
// the REST API's answers and the CLI's --json output. Output only; the API reads request
// bodies in api/json_body.hpp. Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/model.hpp"
#include "store/paging.hpp"
#include "store/reconcile.hpp"

namespace hookd::wire {

nlohmann::json to_json(const store::Application& app);
nlohmann::json to_json(const store::EventType& type);
nlohmann::json to_json(const store::Endpoint& ep);
// A message as JSON text. Its payload is spliced in as stored — the caller's exact bytes
// (A38), never a DOM round trip — so every answer carrying a message renders it here; the
// publish path answers every 202 with this, on the commit thread, so it must be cheap. A
// stored payload that is not valid JSON (never written by the API) is rendered as a string.
// `payload_is_json`: the caller knows the payload is valid JSON (the API stored it from a
// parsed body), so even the validating scan is skipped.
// An expunged payload (store::payload_expunged) is rendered as Svix renders it, kExpiredPayload.
std::string message_json(const store::Message& msg, bool payload_is_json = false);
inline constexpr std::string_view kExpiredPayload = R"({"expired":true})";
// `text` itself when it is valid JSON (spliced byte-for-byte), else `text` as a JSON string.
std::string json_text_or_string(const std::string& text);
// Appends the member `"name": value_json` to the JSON object text `object_json`.
void append_member(std::string& object_json, std::string_view name, std::string_view value_json);
// An endpoint's outbound feed page: `{data, iterator, done}`, each item the message as
// message_json (payload spliced) plus its delivery's `deliveryId` and `status`.
std::string feed_json(const std::vector<store::FeedItem>& items, const std::string& iterator,
                      bool done);
nlohmann::json to_json(const store::Attempt& attempt);
// One attempt as JSON text; with `msg` (Svix `with_msg`) it embeds its message as `msg`.
std::string attempt_json(const store::Attempt& attempt, const store::Message* msg);
// An attempt page; with `messages` each attempt embeds its message (found by msg id).
std::string attempt_page_json(const store::Page<store::Attempt>& page,
                              const store::PageRequest& request,
                              const std::map<std::string, store::Message>* messages);
nlohmann::json to_json(const store::Delivery& delivery);
nlohmann::json to_json(const store::AuditEntry& entry);

// The reconciler's records (docs/reconciliation.md). A run's `state` is "running" until it
// finished, then "failed" (with `error`) or "finished". A difference shows its evidence and
// whether it can be repaired (`repairable`: it carries an event to insert), never that
// event's payload.
nlohmann::json to_json(const store::ReconcileRun& run);
nlohmann::json to_json(const store::Difference& difference);
nlohmann::json to_json(const store::DifferenceActionRecord& action);
// A difference with its `actions`, oldest first (the API's and the CLI's "show one").
nlohmann::json to_json(const store::Difference& difference,
                       const std::vector<store::DifferenceActionRecord>& actions);

// A JSON document kept as text (metadata, schemas, payload); invalid text → a JSON string.
nlohmann::json json_or_string(const std::string& text);

// `{data, done, iterator, prevIterator}` without `data`.
nlohmann::json page_fields(const std::optional<std::string>& iterator, bool done,
                           const store::PageRequest& request);

std::string dump(const nlohmann::json& value);

template <class T>
std::string page_json(const store::Page<T>& page, const store::PageRequest& request) {
  nlohmann::json out = page_fields(page.iterator, page.done, request);
  nlohmann::json data = nlohmann::json::array();
  for (const auto& item : page.data) data.push_back(to_json(item));
  out["data"] = std::move(data);
  return dump(out);
}
// Messages: each rendered by message_json (the payloads' exact bytes).
std::string page_json(const store::Page<store::Message>& page, const store::PageRequest& request);

}  // namespace hookd::wire
