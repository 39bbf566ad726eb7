// hookd's own routes under /api/v1/hookd: the dead-letter queue (list, inspect, replay,
// discard — every manual action audited with actor, reason, before/after), the audit log
// and group-commit statistics.
#include "api/api_impl.hpp"
#include "api/json_body.hpp"
#include "wire/json.hpp"
#include "wire/time.hpp"

namespace hookd::api {
namespace {

constexpr std::size_t kMaxBulkIds = 1000;

struct BulkAction {
  std::vector<std::string> ids;
  std::string reason;
  std::optional<std::string> endpoint_id;
};

// Reads {reason, endpointId?} and, for bulk routes, {ids: [...]}.
std::expected<BulkAction, ApiError> read_action(const nlohmann::json& body,
                                                std::optional<std::string> single_id,
                                                bool allow_endpoint) {
  Fields f(body);
  BulkAction action;
  action.reason = f.required_text("reason", 1024);
  if (allow_endpoint) action.endpoint_id = f.string("endpointId", 256);
  if (single_id) {
    action.ids.push_back(std::move(*single_id));
  } else if (!f.present("ids")) {
    f.add_error("ids", "is required (the dead-letter ids to act on)");
  } else if (auto ids = f.string_list("ids", kMaxBulkIds, 256)) {
    if (ids->empty()) f.add_error("ids", "must not be empty");
    action.ids = std::move(*ids);
  }
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  return action;
}

}  // namespace

Reply Api::Impl::list_dead(Call& call) {
  auto page = page_of(call, true);
  if (!page) return std::unexpected(page.error());
  store::DeadLetterFilter filter;
  if (auto v = call.request.query_param("app_id"); v && !v->empty()) {
    auto app = deps_.store.get_application(*v);  // accepts the uid too
    if (!app) return std::unexpected(from_store_error(app.error(), "application '" + *v + "'"));
    filter.app_id = app->id;
  }
  if (auto v = call.request.query_param("endpoint_id"); v && !v->empty()) filter.endpoint_id = *v;
  for (const auto* name : {"since", "until"}) {
    auto text = call.request.query_param(name);
    if (!text) continue;
    auto ms = wire::parse_time(*text);
    if (!ms) {
      return std::unexpected(
          validation_error({{name, "must be an ISO-8601 time such as 2024-01-01T00:00:00Z"}}));
    }
    (std::string_view(name) == "since" ? filter.since : filter.until) = *ms;
  }
  auto dead = deps_.store.list_dead(filter, *page);
  if (!dead) return std::unexpected(from_store_error(dead.error()));
  return json_response(200, wire::page_json(*dead, *page));
}

Reply Api::Impl::get_dead(Call& call) {
  const auto& id = call.param("delivery_id");
  auto delivery = deps_.store.get_delivery(id);
  if (!delivery)
    return std::unexpected(from_store_error(delivery.error(), "delivery '" + id + "'"));
  nlohmann::json out = {{"delivery", wire::to_json(*delivery)}};
  auto msg = deps_.store.get_message(delivery->app_id, delivery->msg_id);
  store::PageRequest all;
  all.limit = store::PageRequest::kMaxLimit;
  nlohmann::json attempts = nlohmann::json::array();
  auto page = deps_.store.list_attempts_by_message(delivery->msg_id, all);
  if (!page) return std::unexpected(from_store_error(page.error()));
  for (const auto& a : page->data) {
    if (a.delivery_id == delivery->id) attempts.push_back(wire::to_json(a));
  }
  out["attempts"] = std::move(attempts);
  std::string body = wire::dump(out);
  // The payload's exact bytes.
  if (msg) wire::append_member(body, "message", wire::message_json(*msg));
  return json_response(200, std::move(body));
}

namespace {

Reply run_dlq_action(store::Store& store, const std::string& actor,
                     std::expected<BulkAction, ApiError> action, bool replay) {
  if (!action) return std::unexpected(action.error());
  store::AuditEntry audit;
  audit.actor = actor;
  audit.action = replay ? "dlq.replay" : "dlq.discard";
  audit.target_type = "delivery";
  audit.target_id = action->ids.size() == 1 ? action->ids.front() : "";
  audit.reason = action->reason;
  auto count = replay ? store.replay_dead(action->ids, action->endpoint_id, audit)
                      : store.discard_dead(action->ids, audit);
  if (!count && count.error().code == ErrorCode::kConflict) {
    return std::unexpected(conflict("Nothing was changed: " + count.error().message +
                                    " (only dead-lettered deliveries can be " +
                                    (replay ? "replayed)" : "discarded)")));
  }
  if (!count) return std::unexpected(from_store_error(count.error(), "delivery or endpoint"));
  return json_response(200, wire::dump({{replay ? "replayed" : "discarded", *count}}));
}

std::expected<nlohmann::json, ApiError> body_or_empty(const std::string& body, int depth) {
  return parse_json_object(body, depth);
}

}  // namespace

Reply Api::Impl::replay_dead(Call& call) {
  auto body = body_or_empty(call.request.body, deps_.options.max_json_depth);
  if (!body) return std::unexpected(body.error());
  return run_dlq_action(deps_.store, call.actor,
                        read_action(*body, call.param("delivery_id"), true), true);
}

Reply Api::Impl::replay_dead_many(Call& call) {
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  return run_dlq_action(deps_.store, call.actor, read_action(*body, std::nullopt, true), true);
}

Reply Api::Impl::discard_dead(Call& call) {
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  return run_dlq_action(deps_.store, call.actor,
                        read_action(*body, call.param("delivery_id"), false), false);
}

Reply Api::Impl::discard_dead_many(Call& call) {
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  return run_dlq_action(deps_.store, call.actor, read_action(*body, std::nullopt, false), false);
}

Reply Api::Impl::list_audit(Call& call) {
  auto page = page_of(call, true);
  if (!page) return std::unexpected(page.error());
  store::AuditFilter filter;
  if (auto v = call.request.query_param("actor")) filter.actor = *v;
  if (auto v = call.request.query_param("action")) filter.action = *v;
  if (auto v = call.request.query_param("target_id")) filter.target_id = *v;
  auto entries = deps_.store.list_audit(filter, *page);
  if (!entries) return std::unexpected(from_store_error(entries.error()));
  return json_response(200, wire::page_json(*entries, *page));
}

Reply Api::Impl::batcher_stats(Call&) {
  const auto s = deps_.publish.stats();
  return json_response(200, wire::dump({{"publish",
                                         {{"commits", s.commits},
                                          {"messages", s.items},
                                          {"largestBatch", s.largest},
                                          {"dispatcherRounds", s.rounds}}}}));
}

}  // namespace hookd::api
