#include "store/list_filters.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace hookd::store {

std::string in_list(const std::vector<std::string>& items,
                    std::vector<SelectQuery::Value>& values) {
  std::string marks;
  for (const auto& item : items) {
    marks += marks.empty() ? "?" : ",?";
    values.emplace_back(item);
  }
  return marks;
}

void filter_messages(SelectQuery& q, const std::string& app_id, const MessageFilter& filter,
                     const JsonMembership& json) {
  q.where("app_id = ?", {app_id});
  if (filter.event_types && !filter.event_types->empty()) {
    std::vector<SelectQuery::Value> values;
    const std::string marks = in_list(*filter.event_types, values);
    q.where(fmt::format("event_type IN ({})", marks), std::move(values));
  }
  if (filter.channel) q.where(json.channel, {*filter.channel});
  if (filter.tag) q.where(json.tag, {*filter.tag});
  if (filter.since) q.where("created_at >= ?", {*filter.since});
  if (filter.before) q.where("created_at < ?", {*filter.before});
}

void filter_attempts(SelectQuery& q, const AttemptFilter& filter, const JsonMembership& json) {
  if (filter.id) q.where("id = ?", {*filter.id});
  if (filter.msg_id) q.where("msg_id = ?", {*filter.msg_id});
  if (filter.endpoint_id) q.where("endpoint_id = ?", {*filter.endpoint_id});
  if (filter.status) {
    // An attempt row is finished: success (0) or fail (2); pending, sending and canceled
    // match none.
    q.where(*filter.status == 0 ? "success" : *filter.status == 2 ? "NOT success" : "1 = 0");
  }
  if (filter.status_code_class) {
    if (*filter.status_code_class == 0) {
      q.where("response_status IS NULL");
    } else {
      const std::int64_t low = *filter.status_code_class;
      q.where("response_status >= ? AND response_status < ?", {low, low + 100});
    }
  }
  if (filter.event_types && !filter.event_types->empty()) {
    std::vector<SelectQuery::Value> values;
    const std::string marks = in_list(*filter.event_types, values);
    q.where(fmt::format("msg_id IN (SELECT id FROM messages WHERE event_type IN ({}))", marks),
            std::move(values));
  }
  if (filter.channel) {
    q.where(fmt::format("msg_id IN (SELECT id FROM messages WHERE {})", json.channel),
            {*filter.channel});
  }
  if (filter.tag) {
    q.where(fmt::format("msg_id IN (SELECT id FROM messages WHERE {})", json.tag), {*filter.tag});
  }
  if (filter.since) q.where("attempted_at >= ?", {*filter.since});
  if (filter.before) q.where("attempted_at < ?", {*filter.before});
}

void filter_dead_letters(SelectQuery& q, const DeadLetterFilter& filter) {
  q.where("status = 'dead'");
  if (filter.app_id) q.where("app_id = ?", {*filter.app_id});
  if (filter.endpoint_id) q.where("endpoint_id = ?", {*filter.endpoint_id});
  if (filter.since) q.where("updated_at >= ?", {*filter.since});
  if (filter.until) q.where("updated_at < ?", {*filter.until});
}

void filter_inbox(SelectQuery& q, const InboxFilter& filter) {
  if (filter.source) q.where("source = ?", {*filter.source});
  if (filter.status) q.where("status = ?", {std::string(to_string(*filter.status))});
  if (filter.entity_key) q.where("entity_key = ?", {*filter.entity_key});
}

void filter_audit(SelectQuery& q, const AuditFilter& filter) {
  if (filter.actor) q.where("actor = ?", {*filter.actor});
  if (filter.action) q.where("action = ?", {*filter.action});
  if (filter.target_id) q.where("target_id = ?", {*filter.target_id});
}

void filter_proxy_keys(SelectQuery& q, const ProxyKeyFilter& filter) {
  if (filter.proxy) q.where("proxy = ?", {*filter.proxy});
  if (filter.state) q.where("state = ?", {std::string(to_string(*filter.state))});
}

void filter_differences(SelectQuery& q, const DifferenceFilter& filter) {
  if (filter.source) q.where("source = ?", {*filter.source});
  if (filter.state) q.where("state = ?", {std::string(to_string(*filter.state))});
  if (filter.kind) q.where("kind = ?", {std::string(to_string(*filter.kind))});
}

void filter_tasks(SelectQuery& q, const TaskFilter& filter) {
  if (filter.status) q.where("status = ?", {*filter.status});
  if (filter.task) q.where("task = ?", {*filter.task});
}

}  // namespace hookd::store
