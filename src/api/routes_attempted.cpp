// The routes of handlers_attempted.cpp (Svix-compatible paths): attempted messages and
// destinations, expunge-content, send-example, and the transformation routes (501).
#include "api/api_impl.hpp"

namespace hookd::api {

void Api::Impl::add_attempted_routes() {
  const std::string app = "/api/v1/app/{app_id}";
  const std::string ep = app + "/endpoint/{endpoint_id}";
  const std::string msg = app + "/msg/{msg_id}";
  sync("GET", ep + "/msg", &Impl::list_attempted_messages);
  sync("GET", msg + "/endpoint", &Impl::list_attempted_destinations);
  sync("DELETE", msg + "/content", &Impl::expunge_message_content);
  sync("DELETE", msg + "/attempt/{attempt_id}/content", &Impl::expunge_attempt_content);
  router_.add("POST", ep + "/send-example",
              [this](Call& call, Respond respond) { send_example(call, std::move(respond)); });
  // Transformations (server-side JavaScript) are out of scope: Svix's server answers the
  // operations it does not implement with 501 not_implemented, and so does hookd.
  sync("GET", ep + "/transformation", &Impl::transformation_not_implemented);
  sync("PATCH", ep + "/transformation", &Impl::transformation_not_implemented);
  sync("PUT", ep + "/transformation-template/oauth/{provider}",
       &Impl::transformation_not_implemented);
}

}  // namespace hookd::api
