#include "store/attempted_sql.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "store/list_filters.hpp"
#include "store/row_columns.hpp"

namespace hookd::store {
namespace {

// "a, b" -> "t.a, t.b".
std::string qualified(std::string_view table, std::string_view columns) {
  std::string out;
  std::size_t start = 0;
  while (start < columns.size()) {
    std::size_t end = columns.find(',', start);
    if (end == std::string_view::npos) end = columns.size();
    std::string_view name = columns.substr(start, end - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    if (!out.empty()) out += ", ";
    out += fmt::format("{}.{}", table, name);
    start = end + 1;
  }
  return out;
}

// The row `d` is the latest delivery of its message to its endpoint (ids are time-sortable).
constexpr std::string_view kLatestDelivery =
    "d.id = (SELECT MAX(d2.id) FROM deliveries d2 WHERE d2.msg_id = d.msg_id "
    "AND d2.endpoint_id = d.endpoint_id)";

}  // namespace

const std::string& endpoint_message_select() {
  static const std::string sql = fmt::format(
      "SELECT {}, d.status, d.next_attempt_at FROM deliveries d "
      "JOIN messages ON messages.id = d.msg_id",
      qualified("messages", kMessageColumns));
  return sql;
}

const std::string& destination_select() {
  static const std::string sql = fmt::format(
      "SELECT {}, d.status, d.next_attempt_at FROM deliveries d "
      "JOIN endpoints ON endpoints.id = d.endpoint_id",
      qualified("endpoints", kEndpointColumns));
  return sql;
}

void filter_endpoint_messages(SelectQuery& q, const std::string& endpoint_id,
                              const EndpointMessageFilter& filter, const JsonMembership& json) {
  q.where("d.endpoint_id = ?", {endpoint_id});
  q.where(kLatestDelivery);
  if (filter.statuses) {
    std::vector<std::string> names;
    for (auto s : *filter.statuses) names.emplace_back(to_string(s));
    if (names.empty()) {
      q.where("1 = 0");
    } else {
      std::vector<SelectQuery::Value> values;
      const std::string marks = in_list(names, values);
      q.where(fmt::format("d.status IN ({})", marks), std::move(values));
    }
  }
  if (filter.event_types && !filter.event_types->empty()) {
    std::vector<SelectQuery::Value> values;
    const std::string marks = in_list(*filter.event_types, values);
    q.where(fmt::format("messages.event_type IN ({})", marks), std::move(values));
  }
  if (filter.channel) q.where(json.channel, {*filter.channel});
  if (filter.tag) q.where(json.tag, {*filter.tag});
  if (filter.since) q.where("messages.created_at >= ?", {*filter.since});
  if (filter.before) q.where("messages.created_at < ?", {*filter.before});
}

void filter_message_destinations(SelectQuery& q, const std::string& msg_id) {
  q.where("d.msg_id = ?", {msg_id});
  q.where(kLatestDelivery);
}

std::string expunge_state_json(int discarded) {
  return nlohmann::json{{"payload", "expunged"}, {"discarded", discarded}}.dump();
}

std::string attempt_body_state_json(std::size_t bytes) {
  return nlohmann::json{{"responseBytes", bytes}}.dump();
}

Attempt expunged_attempt(Attempt attempt) {
  attempt.response_body = std::string(kExpungedResponse);
  attempt.response_headers.clear();
  return attempt;
}

std::optional<std::string> last_error_after_expunge(
    const Attempt& before, const std::optional<std::string>& current_last_error) {
  if (current_last_error && current_last_error == last_error_of(before)) {
    return last_error_of(expunged_attempt(before));
  }
  return current_last_error;
}

}  // namespace hookd::store
