// Api::Impl: the pieces behind Api — auth, router, idempotency keys, address policy,
// metrics — and the route handlers, which are split by resource over handlers_*.cpp.
// Internal header. Thread-safety: as Api (handlers run concurrently; every member is
// immutable after construction or thread-safe itself).
#pragma once

#include <atomic>
#include <expected>
#include <functional>
#include <optional>
#include <string>

#include "api/api.hpp"
#include "api/auth.hpp"
#include "api/problem.hpp"
#include "api/router.hpp"
#include "core/address_policy.hpp"
#include "ops/metrics.hpp"

namespace hookd::api {

using Reply = std::expected<net::HttpResponse, ApiError>;

// The route whose handler folds an Idempotency-Key into its own (group-committed) store
// transaction instead of the generic begin/finish around it.
inline constexpr std::string_view kPublishPattern = "/api/v1/app/{app_id}/msg";

// A response as an Idempotency-Key keeps it (status, replayable headers, body), and back.
store::StoredResponse to_stored(const net::HttpResponse& response);
net::HttpResponse stored_response(const store::IdempotencyRecord& record);

// The application and endpoint named by a route's {app_id} and {endpoint_id}.
struct AppEndpoint {
  store::Application app;
  store::Endpoint endpoint;
};

// The [since, until) of a Svix recover or replay-missing body (RecoverIn / ReplayIn): since
// required, until optional and later (handlers_tasks.cpp); 422 otherwise.
struct TaskWindow {
  store::Millis since = 0;
  std::optional<store::Millis> until;
};
std::expected<TaskWindow, ApiError> task_window(const nlohmann::json& body);
nlohmann::json task_window_json(const TaskWindow& w);  // {since, until} as audited

class Api::Impl {
 public:
  explicit Impl(ApiDeps deps);

  Status start();
  void stop();
  void handle(net::HttpRequest request, Respond respond);

 private:
  // Setup.
  void add_routes();
  void add_application_routes();
  void add_endpoint_routes();
  void add_message_routes();
  void add_hookd_routes();
  void add_attempted_routes();  // routes_attempted.cpp
  void add_task_routes();
  void sync(std::string method, std::string pattern, Reply (Impl::*fn)(Call&),
            bool feed_token = false);
  // The actor of a request: its API token's name, or for a route that takes feed tokens,
  // "feed-token:<endpoint id>" when the token is that endpoint's own; nullopt -> 401.
  std::optional<std::string> authenticate(const Call& call, const Route& route) const;

  // Request flow.
  void dispatch(Call call, const Route& route, Respond respond);
  void with_idempotency(Call call, const Route& route, std::string key, Respond respond);
  // Idempotency-Key handling around `produce` (idempotency.cpp); also a keyed publish refused
  // before the batch, whose answer is kept under its key like any other.
  void run_keyed(const Call& call, const store::PublishKey& k, Respond respond,
                 const std::function<void(Respond)>& produce);
  std::optional<ApiError> check_idempotency_key(std::string_view key) const;
  store::PublishKey idempotency_key_of(const Call& call, std::string key) const;
  // The answer to a request whose key was seen before (replay, 409, 422), counted.
  net::HttpResponse seen_key_response(const store::IdempotencyBegin& seen, const std::string& actor,
                                      std::string_view path);
  void count_idempotency(const char* outcome);
  void count_unauthorized();

  // Shared helpers.
  std::expected<nlohmann::json, ApiError> body_of(const Call& call) const;
  std::expected<store::PageRequest, ApiError> page_of(const Call& call, bool newest_first) const;
  std::expected<store::Application, ApiError> app_of(const Call& call) const;
  std::expected<store::Endpoint, ApiError> endpoint_of(const Call& call,
                                                       const store::Application& app) const;
  // app_of, then endpoint_of within that application: 404 for either.
  std::expected<AppEndpoint, ApiError> app_endpoint_of(const Call& call) const;
  // The route's {msg_id} (id or event id) within application `app_id`: 404 if not there.
  std::expected<store::Message, ApiError> message_of(const Call& call,
                                                     const std::string& app_id) const;
  std::string new_secret() const;          // whsec_ + 24 random bytes
  std::string new_ed25519_secret() const;  // whsk_ + a 32-byte random seed

  // Applications and event types (handlers_apps.cpp).
  Reply create_app(Call& call);
  Reply list_apps(Call& call);
  Reply get_app(Call& call);
  Reply put_app(Call& call);
  Reply patch_app(Call& call);
  Reply delete_app(Call& call);
  Reply create_event_type(Call& call);
  Reply list_event_types(Call& call);
  Reply get_event_type(Call& call);
  Reply put_event_type(Call& call);
  Reply patch_event_type(Call& call);
  Reply delete_event_type(Call& call);

  // Endpoints (handlers_endpoints.cpp).
  Reply create_endpoint(Call& call);
  // Stores the new endpoint `ep` of `app` (POST, and PUT of an unknown uid): 201 or 409.
  Reply insert_endpoint(Call& call, const store::Application& app, store::Endpoint ep,
                        std::optional<std::string> secret);
  Reply upsert_endpoint(Call& call, const store::Application& app);  // PUT of an unknown uid
  Reply list_endpoints(Call& call);
  Reply get_endpoint(Call& call);
  Reply put_endpoint(Call& call);
  Reply patch_endpoint(Call& call);
  Reply delete_endpoint(Call& call);
  Reply get_endpoint_secret(Call& call);
  Reply rotate_endpoint_secret(Call& call);
  Reply recover_endpoint(Call& call);
  Reply get_endpoint_headers(Call& call);
  Reply put_endpoint_headers(Call& call);
  Reply patch_endpoint_headers(Call& call);
  Reply set_endpoint_enabled(Call& call, bool disabled);
  Reply enable_endpoint(Call& call) { return set_endpoint_enabled(call, false); }
  Reply disable_endpoint(Call& call) { return set_endpoint_enabled(call, true); }

  // Messages (handlers_messages.cpp).
  void create_message(Call& call, Respond respond);
  // The path's application, or the one MessageIn.application creates (get-or-create by uid).
  std::expected<store::Application, ApiError> app_for_message(const Call& call,
                                                              const nlohmann::json& body) const;
  void submit_message(store::NewMessage msg, const Call& call, Respond respond);
  Reply list_messages(Call& call);
  Reply get_message(Call& call);
  Reply resend(Call& call);

  // Attempts (handlers_attempts.cpp).
  Reply list_attempts_by_message(Call& call);
  Reply list_attempts_by_endpoint(Call& call);
  // One page of `filter`'s attempts, with_msg / with_content applied.
  Reply attempt_page(Call& call, const store::AttemptFilter& filter, const std::string& app_id);
  Reply get_attempt(Call& call);

  // What was attempted, expunge-content, send-example, transformations (handlers_attempted.cpp).
  Reply list_attempted_messages(Call& call);
  Reply list_attempted_destinations(Call& call);
  Reply expunge_message_content(Call& call);
  Reply expunge_attempt_content(Call& call);
  void send_example(Call& call, Respond respond);
  // The message send-example publishes (only to the path's endpoint), or why not.
  std::expected<store::NewMessage, ApiError> example_message(const Call& call) const;
  Reply transformation_not_implemented(Call& call);

  // hookd additions (handlers_hookd.cpp).
  Reply list_dead(Call& call);
  Reply get_dead(Call& call);
  Reply replay_dead(Call& call);
  Reply replay_dead_many(Call& call);
  Reply discard_dead(Call& call);
  Reply discard_dead_many(Call& call);
  Reply list_audit(Call& call);
  Reply batcher_stats(Call& call);

  // Background tasks and endpoint stats (handlers_tasks.cpp).
  // Stores a finished task of `ep` (`data`: what it did) and answers 202 Svix's
  // RecoverOut/ReplayOut {id, status, task} with updatedAt and data's fields.
  Reply finished_task(const store::Endpoint& ep, std::string kind, nlohmann::json data);
  Reply replay_missing(Call& call);
  Reply endpoint_stats(Call& call);
  Reply list_background_tasks(Call& call);
  Reply get_background_task(Call& call);

  // The outbound feed (handlers_feed.cpp).
  Reply get_feed(Call& call);
  Reply get_feed_token(Call& call);
  Reply rotate_feed_token(Call& call);
  Reply issue_feed_token(Call& call, bool replace);

  // The idempotency gateway's keys (handlers_proxy_keys.cpp).
  Reply list_proxy_keys(Call& call);
  Reply get_proxy_key(Call& call);
  Reply resolve_proxy_key(Call& call);
  // The inbound inbox (handlers_inbox.cpp).
  Reply list_inbox(Call& call);
  Reply get_inbox(Call& call);
  Reply replay_inbox(Call& call);
  // The reconcilers' runs and differences (handlers_reconcile.cpp).
  Reply start_reconcile_run(Call& call);
  Reply list_reconcile_runs(Call& call);
  Reply get_reconcile_run(Call& call);
  Reply list_differences(Call& call);
  Reply get_difference(Call& call);
  Reply resolve_difference(Call& call);

  ApiDeps deps_;
  TokenAuth auth_;
  Router router_;
  std::atomic<bool> running_{false};

  // Optional metrics (null without a registry).
  ops::Counter* unauthorized_ = nullptr;
  ops::CounterFamily* publishes_ = nullptr;  // outcome: created|duplicate|rejected|failed
  ops::CounterFamily* idempotency_alerts_ = nullptr;
};

}  // namespace hookd::api
