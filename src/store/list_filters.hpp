// The WHERE conditions of the filtered lists, the same on both backends so that a filter
// means the same everywhere: each adds its conditions (written with `?`) to a SelectQuery
// that starts as "SELECT <columns> FROM <table>". Only a JSON list's membership test is
// dialect: the backend passes it. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "store/select_query.hpp"
#include "store/store.hpp"

namespace hookd::store {

// How a backend tests "this JSON list column of messages holds ?".
struct JsonMembership {
  std::string_view channel;  // messages.channels holds ?
  std::string_view tag;      // messages.tags holds ?
};

// "?,?,?" for an IN list of `items`, whose values are appended to `values`.
std::string in_list(const std::vector<std::string>& items, std::vector<SelectQuery::Value>& values);

void filter_messages(SelectQuery& q, const std::string& app_id, const MessageFilter& filter,
                     const JsonMembership& json);
// Attempts; event types and channel are tested on the attempt's message.
void filter_attempts(SelectQuery& q, const AttemptFilter& filter, const JsonMembership& json);
void filter_dead_letters(SelectQuery& q, const DeadLetterFilter& filter);
void filter_inbox(SelectQuery& q, const InboxFilter& filter);
void filter_audit(SelectQuery& q, const AuditFilter& filter);
void filter_proxy_keys(SelectQuery& q, const ProxyKeyFilter& filter);
void filter_differences(SelectQuery& q, const DifferenceFilter& filter);
void filter_tasks(SelectQuery& q, const TaskFilter& filter);

}  // namespace hookd::store
