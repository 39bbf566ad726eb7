// Attempts: the Svix lists by message and by endpoint with their filters (status,
// status_code_class, endpoint_id, event_types, channel, tag, before/after — all in the store's
// query), with_msg / with_content, and attempt get.
#include "api/api_impl.hpp"
#include "api/query_values.hpp"
#include "wire/json.hpp"
#include "wire/time.hpp"

namespace hookd::api {
namespace {

std::expected<store::AttemptFilter, ApiError> attempt_filter_of(const net::HttpRequest& request) {
  store::AttemptFilter filter;
  auto status = int_param(request, "status", {0, 1, 2, 3, 4});
  if (!status) return std::unexpected(status.error());
  filter.status = *status;
  auto code_class = int_param(request, "status_code_class", {0, 100, 200, 300, 400, 500});
  if (!code_class) return std::unexpected(code_class.error());
  filter.status_code_class = *code_class;
  if (auto read = read_message_selectors(request, filter); !read) {
    return std::unexpected(read.error());
  }
  return filter;
}

bool with_content(const net::HttpRequest& request) {
  return request.query_param("with_content") != "false";
}

}  // namespace

Reply Api::Impl::list_attempts_by_message(Call& call) {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  auto msg = message_of(call, app->id);
  if (!msg) return std::unexpected(msg.error());
  auto filter = attempt_filter_of(call.request);
  if (!filter) return std::unexpected(filter.error());
  filter->msg_id = msg->id;
  if (auto ep = call.request.query_param("endpoint_id")) {
    auto endpoint = deps_.store.get_endpoint(app->id, *ep);  // an id or a uid
    filter->endpoint_id = endpoint ? endpoint->id : *ep;
  }
  return attempt_page(call, *filter, app->id);
}

Reply Api::Impl::list_attempts_by_endpoint(Call& call) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  auto filter = attempt_filter_of(call.request);
  if (!filter) return std::unexpected(filter.error());
  filter->endpoint_id = found->endpoint.id;
  return attempt_page(call, *filter, found->app.id);
}

Reply Api::Impl::attempt_page(Call& call, const store::AttemptFilter& filter,
                              const std::string& app_id) {
  auto page = page_of(call, true);
  if (!page) return std::unexpected(page.error());
  auto attempts = deps_.store.list_attempts(filter, *page);
  if (!attempts) return std::unexpected(from_store_error(attempts.error()));
  const bool content = with_content(call.request);
  if (!content) {
    for (auto& a : attempts->data) a.response_body.clear();
  }
  if (call.request.query_param("with_msg") != "true") {
    return json_response(200, wire::attempt_page_json(*attempts, *page, nullptr));
  }
  std::map<std::string, store::Message> messages;
  for (const auto& a : attempts->data) {
    if (messages.contains(a.msg_id)) continue;
    auto msg = deps_.store.get_message(app_id, a.msg_id);
    if (!msg) continue;  // expunged with its application: the attempt alone
    if (!content) msg->payload = "{}";
    messages.emplace(a.msg_id, std::move(*msg));
  }
  return json_response(200, wire::attempt_page_json(*attempts, *page, &messages));
}

Reply Api::Impl::get_attempt(Call& call) {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  auto msg = message_of(call, app->id);
  if (!msg) return std::unexpected(msg.error());
  const auto& attempt_id = call.param("attempt_id");
  store::PageRequest one;
  one.limit = 1;
  auto found =
      deps_.store.list_attempts(store::AttemptFilter{.id = attempt_id, .msg_id = msg->id}, one);
  if (!found) return std::unexpected(from_store_error(found.error()));
  if (found->data.empty()) {
    return std::unexpected(
        from_store_error(Error{ErrorCode::kNotFound, "not found"}, "attempt '" + attempt_id + "'"));
  }
  return json_response(200, wire::attempt_json(found->data.front(), nullptr));
}

}  // namespace hookd::api
