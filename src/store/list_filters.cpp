#include "store/list_filters.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace hookd::store {

void filter_messages(SelectQuery& q, const std::string& app_id, const MessageFilter& filter,
                     const JsonMembership& json) {
  q.where("app_id = ?", {app_id});
  if (filter.event_types && !filter.event_types->empty()) {
    std::string marks;
    std::vector<SelectQuery::Value> values;
    for (const auto& t : *filter.event_types) {
      marks += marks.empty() ? "?" : ",?";
      values.emplace_back(t);
    }
    q.where(fmt::format("event_type IN ({})", marks), std::move(values));
  }
  if (filter.channel) q.where(json.channel, {*filter.channel});
  if (filter.tag) q.where(json.tag, {*filter.tag});
  if (filter.since) q.where("created_at >= ?", {*filter.since});
  if (filter.before) q.where("created_at < ?", {*filter.before});
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

}  // namespace hookd::store
