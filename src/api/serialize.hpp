// Svix-shaped JSON for hookd's records (camelCase names, ISO-8601 times, `{data, iterator,
// prevIterator, done}` pages), plus hookd's own fields (fifo, retryPolicy, timeouts,
// orderingKey/sequence, dead-letter and audit records). Output only; request bodies are
// read in inputs.hpp. Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "store/model.hpp"
#include "store/paging.hpp"

namespace hookd::api {

nlohmann::json to_json(const store::Application& app);
nlohmann::json to_json(const store::EventType& type);
nlohmann::json to_json(const store::Endpoint& ep);
nlohmann::json to_json(const store::Message& msg);
// dump(to_json(msg)) without building the payload's DOM: a payload that is valid JSON is
// spliced in as it is stored (the publish path answers every 202 with this, on the commit
// thread, so it must be cheap). Same content as dump(to_json(msg)), key order aside.
// `payload_is_json`: the caller knows the payload is valid JSON (the API stored it from a
// parsed body), so even the validating scan is skipped.
std::string message_json(const store::Message& msg, bool payload_is_json = false);
nlohmann::json to_json(const store::Attempt& attempt);
nlohmann::json to_json(const store::Delivery& delivery);
nlohmann::json to_json(const store::AuditEntry& entry);

// A JSON document kept as text (metadata, schemas, payload); invalid text → a JSON string.
nlohmann::json json_or_string(const std::string& text);

template <class T>
std::string page_json(const store::Page<T>& page, const store::PageRequest& request) {
  nlohmann::json data = nlohmann::json::array();
  for (const auto& item : page.data) data.push_back(to_json(item));
  nlohmann::json out = {{"data", std::move(data)}, {"done", page.done}};
  out["iterator"] = page.iterator ? nlohmann::json(*page.iterator) : nlohmann::json(nullptr);
  out["prevIterator"] =
      request.iterator ? nlohmann::json(*request.iterator) : nlohmann::json(nullptr);
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string dump(const nlohmann::json& value);

}  // namespace hookd::api
