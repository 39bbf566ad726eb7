// The route table: Svix-compatible paths first, then hookd's own under /api/v1/hookd.
#include "api/api_impl.hpp"
#include "api/problem.hpp"

namespace hookd::api {

void Api::Impl::add_routes() {
  router_.add(
      "GET", "/api/v1/health", [](Call&, Respond respond) { respond(empty_response(204)); },
      /*requires_auth=*/false);
  add_application_routes();
  add_endpoint_routes();
  add_message_routes();
  add_attempted_routes();
  add_task_routes();
  add_hookd_routes();
}

void Api::Impl::add_task_routes() {
  const std::string one = "/api/v1/app/{app_id}/endpoint/{endpoint_id}";
  sync("POST", one + "/replay-missing", &Impl::replay_missing);
  sync("GET", one + "/stats", &Impl::endpoint_stats);
  sync("GET", "/api/v1/background-task", &Impl::list_background_tasks);
  sync("GET", "/api/v1/background-task/{task_id}", &Impl::get_background_task);
}

void Api::Impl::add_application_routes() {
  sync("POST", "/api/v1/app", &Impl::create_app);
  sync("GET", "/api/v1/app", &Impl::list_apps);
  sync("GET", "/api/v1/app/{app_id}", &Impl::get_app);
  sync("PUT", "/api/v1/app/{app_id}", &Impl::put_app);
  sync("PATCH", "/api/v1/app/{app_id}", &Impl::patch_app);
  sync("DELETE", "/api/v1/app/{app_id}", &Impl::delete_app);
  sync("POST", "/api/v1/event-type", &Impl::create_event_type);
  sync("GET", "/api/v1/event-type", &Impl::list_event_types);
  sync("GET", "/api/v1/event-type/{event_type_name}", &Impl::get_event_type);
  sync("PUT", "/api/v1/event-type/{event_type_name}", &Impl::put_event_type);
  sync("PATCH", "/api/v1/event-type/{event_type_name}", &Impl::patch_event_type);
  sync("DELETE", "/api/v1/event-type/{event_type_name}", &Impl::delete_event_type);
}

void Api::Impl::add_endpoint_routes() {
  const std::string base = "/api/v1/app/{app_id}/endpoint";
  const std::string one = base + "/{endpoint_id}";
  sync("POST", base, &Impl::create_endpoint);
  sync("GET", base, &Impl::list_endpoints);
  sync("GET", one, &Impl::get_endpoint);
  sync("PUT", one, &Impl::put_endpoint);
  sync("PATCH", one, &Impl::patch_endpoint);
  sync("DELETE", one, &Impl::delete_endpoint);
  sync("GET", one + "/secret", &Impl::get_endpoint_secret);
  sync("POST", one + "/secret/rotate", &Impl::rotate_endpoint_secret);
  sync("POST", one + "/recover", &Impl::recover_endpoint);
  sync("GET", one + "/headers", &Impl::get_endpoint_headers);
  sync("PUT", one + "/headers", &Impl::put_endpoint_headers);
  sync("PATCH", one + "/headers", &Impl::patch_endpoint_headers);
}

void Api::Impl::add_message_routes() {
  router_.add("POST", std::string(kPublishPattern),
              [this](Call& call, Respond respond) { create_message(call, std::move(respond)); });
  sync("GET", "/api/v1/app/{app_id}/msg", &Impl::list_messages);
  sync("GET", "/api/v1/app/{app_id}/msg/{msg_id}", &Impl::get_message);
  sync("POST", "/api/v1/app/{app_id}/msg/{msg_id}/endpoint/{endpoint_id}/resend", &Impl::resend);
  sync("GET", "/api/v1/app/{app_id}/attempt/msg/{msg_id}", &Impl::list_attempts_by_message);
  sync("GET", "/api/v1/app/{app_id}/attempt/endpoint/{endpoint_id}",
       &Impl::list_attempts_by_endpoint);
  sync("GET", "/api/v1/app/{app_id}/msg/{msg_id}/attempt/{attempt_id}", &Impl::get_attempt);
}

void Api::Impl::add_hookd_routes() {
  const std::string ep = "/api/v1/hookd/app/{app_id}/endpoint/{endpoint_id}";
  sync("POST", ep + "/disable", &Impl::disable_endpoint);
  sync("POST", ep + "/enable", &Impl::enable_endpoint);
  sync("GET", "/api/v1/hookd/dlq", &Impl::list_dead);
  sync("GET", "/api/v1/hookd/dlq/{delivery_id}", &Impl::get_dead);
  sync("POST", "/api/v1/hookd/dlq/{delivery_id}/replay", &Impl::replay_dead);
  sync("POST", "/api/v1/hookd/dlq/{delivery_id}/discard", &Impl::discard_dead);
  sync("POST", "/api/v1/hookd/dlq/replay", &Impl::replay_dead_many);
  sync("POST", "/api/v1/hookd/dlq/discard", &Impl::discard_dead_many);
  sync("GET", "/api/v1/hookd/audit", &Impl::list_audit);
  sync("GET", "/api/v1/hookd/stats", &Impl::batcher_stats);
  sync("GET", "/api/v1/hookd/feed/{endpoint_id}", &Impl::get_feed, /*feed_token=*/true);
  sync("GET", ep + "/feed-token", &Impl::get_feed_token);
  sync("POST", ep + "/feed-token/rotate", &Impl::rotate_feed_token);
  sync("GET", "/api/v1/hookd/inbox", &Impl::list_inbox);
  sync("GET", "/api/v1/hookd/inbox/{inbox_id}", &Impl::get_inbox);
  sync("POST", "/api/v1/hookd/inbox/{inbox_id}/replay", &Impl::replay_inbox);
  sync("GET", "/api/v1/hookd/idempotency", &Impl::list_proxy_keys);
  sync("GET", "/api/v1/hookd/idempotency/{key_id}", &Impl::get_proxy_key);
  sync("POST", "/api/v1/hookd/idempotency/{key_id}/resolve", &Impl::resolve_proxy_key);
  const std::string reconcile = "/api/v1/hookd/reconcile";
  sync("POST", reconcile + "/{source}/run", &Impl::start_reconcile_run);
  sync("GET", reconcile + "/runs", &Impl::list_reconcile_runs);
  sync("GET", reconcile + "/runs/{run_id}", &Impl::get_reconcile_run);
  sync("GET", reconcile + "/differences", &Impl::list_differences);
  sync("GET", reconcile + "/differences/{difference_id}", &Impl::get_difference);
  sync("POST", reconcile + "/differences/{difference_id}/resolve", &Impl::resolve_difference);
}

}  // namespace hookd::api
