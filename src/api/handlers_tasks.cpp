// Svix background tasks and endpoint stats: `POST …/endpoint/{ep}/replay-missing` (ReplayIn
// {since, until?} → 202 ReplayOut), the task record every recover and replay-missing leaves
// (`qtask_`, readable with `GET /api/v1/background-task[/{task_id}]`), and
// `GET …/endpoint/{ep}/stats` (EndpointStats). hookd runs both tasks inside the call, so a
// task is written "finished" with what it did in `data`. Thread-safety: as Api::Impl.
#include <nlohmann/json.hpp>

#include <array>
#include <string_view>

#include "api/api_impl.hpp"
#include "api/audit_entries.hpp"
#include "api/json_body.hpp"
#include "hookd/ids.hpp"
#include "wire/json.hpp"
#include "wire/time.hpp"

namespace hookd::api {
namespace {

// Svix BackgroundTaskStatus and BackgroundTaskType (the values a list may filter by).
constexpr std::array<std::string_view, 3> kTaskStatuses{"running", "finished", "failed"};
constexpr std::array<std::string_view, 7> kTaskTypes{
    "endpoint.replay", "endpoint.recover",     "application.stats",        "message.broadcast",
    "sdk.generate",    "event-type.aggregate", "application.purge_content"};

template <std::size_t N>
bool one_of(const std::array<std::string_view, N>& values, std::string_view v) {
  for (auto x : values)
    if (x == v) return true;
  return false;
}

// BackgroundTaskOut + hookd's createdAt, appId, endpointId.
nlohmann::json task_json(const store::BackgroundTask& t) {
  auto data = nlohmann::json::parse(t.data, nullptr, false);
  if (!data.is_object()) data = nlohmann::json::object();
  return {{"id", t.id},
          {"status", t.status},
          {"task", t.task},
          {"data", std::move(data)},
          {"createdAt", wire::format_time(t.created_at)},
          {"updatedAt", wire::format_time(t.updated_at)},
          {"appId", t.app_id},
          {"endpointId", t.endpoint_id}};
}

// An optional RFC 3339 query value; unreadable → 422 located in the query.
std::expected<std::optional<store::Millis>, ApiError> query_time(const Call& call,
                                                                 const char* name) {
  auto text = call.request.query_param(name);
  if (!text || text->empty()) return std::nullopt;
  auto ms = wire::parse_time(*text);
  if (!ms) {
    return std::unexpected(
        query_validation_error({{name, "must be an RFC 3339 time such as 2024-01-01T00:00:00Z"}}));
  }
  return *ms;
}

}  // namespace

std::expected<TaskWindow, ApiError> task_window(const nlohmann::json& body) {
  Fields f(body);
  if (!f.present("since")) f.add_error("since", "is required (an ISO-8601 time)");
  auto since = f.time("since");
  auto until = f.time("until");  // optional, exclusive
  if (since && until && *until <= *since) f.add_error("until", "must be later than since");
  if (!f.ok()) return std::unexpected(validation_error(f.errors()));
  return TaskWindow{*since, until};
}

nlohmann::json task_window_json(const TaskWindow& w) {
  return {
      {"since", wire::format_time(w.since)},
      {"until", w.until ? nlohmann::json(wire::format_time(*w.until)) : nlohmann::json(nullptr)}};
}

Reply Api::Impl::finished_task(const store::Endpoint& ep, std::string kind, nlohmann::json data) {
  const auto now = deps_.clock.now_ms();
  IdRandomBytes random{};
  deps_.random.fill(random);
  store::BackgroundTask task;
  task.id = make_id(id_prefix::kTask, now, random);
  task.task = std::move(kind);
  task.status = "finished";
  task.data = data.dump();
  task.app_id = ep.app_id;
  task.endpoint_id = ep.id;
  task.created_at = now;
  task.updated_at = now;
  if (auto put = deps_.store.put_task(task); !put) {
    return std::unexpected(from_store_error(put.error(), "background task"));
  }
  // RecoverOut / ReplayOut {id, status, task} + hookd's updatedAt and data's fields.
  nlohmann::json out = {{"id", task.id},
                        {"status", task.status},
                        {"task", task.task},
                        {"updatedAt", wire::format_time(now)}};
  for (const auto& item : data.items()) out[item.key()] = item.value();
  return json_response(202, wire::dump(out));
}

Reply Api::Impl::replay_missing(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  const auto& ep = found->endpoint;
  auto body = body_of(call);
  if (!body) return std::unexpected(body.error());
  auto window = task_window(*body);
  if (!window) return std::unexpected(window.error());
  auto audit =  // after: {status: pending, replayed: n}, by the store
      with_states(audit_entry(call, "endpoint.replay_missing", "endpoint", ep.id),
                  task_window_json(*window), nullptr);
  auto count = deps_.store.replay_missing(ep.id, window->since, window->until, std::move(audit));
  if (!count) return std::unexpected(from_store_error(count.error(), "endpoint"));
  return finished_task(ep, "endpoint.replay", {{"replayed", *count}});
}

Reply Api::Impl::endpoint_stats(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  auto since = query_time(call, "since");
  if (!since) return std::unexpected(since.error());
  auto until = query_time(call, "until");
  if (!until) return std::unexpected(until.error());
  auto stats = deps_.store.endpoint_stats(found->endpoint.id, *since, *until);
  if (!stats) return std::unexpected(from_store_error(stats.error(), "endpoint"));
  nlohmann::json out = {{"success", stats->success},
                        {"pending", stats->pending},
                        {"sending", stats->sending},
                        {"fail", stats->fail},
                        {"canceled", stats->canceled}};
  return json_response(200, wire::dump(out));
}

Reply Api::Impl::list_background_tasks(Call& call) {
  auto page = page_of(call, /*newest_first=*/true);
  if (!page) return std::unexpected(page.error());
  store::TaskFilter filter;
  if (auto v = call.request.query_param("status"); v && !v->empty()) {
    if (!one_of(kTaskStatuses, *v)) {
      return std::unexpected(
          query_validation_error({{"status", "must be one of running, finished, failed"}}));
    }
    filter.status = std::string(*v);
  }
  if (auto v = call.request.query_param("task"); v && !v->empty()) {
    if (!one_of(kTaskTypes, *v)) {
      return std::unexpected(query_validation_error(
          {{"task", "must be a Svix BackgroundTaskType such as endpoint.replay"}}));
    }
    filter.task = std::string(*v);
  }
  auto tasks = deps_.store.list_tasks(filter, *page);
  if (!tasks) return std::unexpected(from_store_error(tasks.error()));
  nlohmann::json out = wire::page_fields(tasks->iterator, tasks->done, *page);
  nlohmann::json data = nlohmann::json::array();
  for (const auto& t : tasks->data) data.push_back(task_json(t));
  out["data"] = std::move(data);
  return json_response(200, wire::dump(out));
}

Reply Api::Impl::get_background_task(Call& call) {
  const auto& id = call.param("task_id");
  auto task = deps_.store.get_task(id);
  if (!task) return std::unexpected(from_store_error(task.error(), "background task '" + id + "'"));
  return json_response(200, wire::dump(task_json(*task)));
}

}  // namespace hookd::api
