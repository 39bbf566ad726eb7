// Api and Api::Impl: construction, start/stop, the request pipeline (route → auth →
// media type → idempotency → handler) and helpers shared by the handlers.
#include "api/api.hpp"

#include <cstdlib>
#include <exception>

#include "api/api_impl.hpp"
#include "api/json_body.hpp"
#include "api/masked_view.hpp"
#include "api/media_type.hpp"
#include "hookd/encoding.hpp"
#include "ops/hookd_metrics.hpp"
#include "ops/log.hpp"

namespace hookd::api {

Api::Api(ApiDeps deps) : impl_(std::make_unique<Impl>(std::move(deps))) {}
Api::~Api() { stop(); }
Status Api::start() { return impl_->start(); }
void Api::stop() { impl_->stop(); }
void Api::handle(net::HttpRequest request, Respond respond) {
  impl_->handle(std::move(request), std::move(respond));
}

Api::Impl::Impl(ApiDeps deps) : deps_(std::move(deps)), auth_(deps_.options.tokens) {
  if (deps_.registry != nullptr) {
    unauthorized_ = &deps_.registry
                         ->counter("hookd_api_unauthorized_total",
                                   "API requests refused with 401 (missing or wrong token)")
                         .get();
    publishes_ = &deps_.registry->counter("hookd_api_publishes_total",
                                          "POST .../msg results by outcome", {"outcome"});
    idempotency_alerts_ = &deps_.registry->counter(
        "hookd_api_idempotency_key_reuse_total",
        "Idempotency-Key reused with a different request body (422, alerted)");
  }
  add_routes();
}

Status Api::Impl::start() {
  running_ = true;
  return {};
}

void Api::Impl::stop() { running_ = false; }

void Api::Impl::count_unauthorized() {
  if (unauthorized_ != nullptr) unauthorized_->inc();
}

void Api::Impl::sync(std::string method, std::string pattern, Reply (Impl::*fn)(Call&),
                     bool feed_token) {
  router_.add(
      std::move(method), std::move(pattern),
      [this, fn](Call& call, Respond respond) {
        auto reply = (this->*fn)(call);
        respond(reply ? std::move(*reply) : to_response(reply.error()));
      },
      /*requires_auth=*/true, feed_token);
}

std::optional<std::string> Api::Impl::authenticate(const Call& call, const Route& route) const {
  const auto header = call.request.headers.get("Authorization");
  if (auto actor = auth_.authenticate(header)) return actor;
  if (!route.feed_token || !header) return std::nullopt;
  // An endpoint's feed token opens that endpoint's feed only (the store keeps its SHA-256).
  auto token = bearer_token(*header);
  if (!token || !token->starts_with(kFeedTokenPrefix)) return std::nullopt;
  auto owner = deps_.store.feed_token_endpoint(sha256_hex(*token));
  if (!owner || *owner != call.param("endpoint_id")) return std::nullopt;
  return "feed-token:" + *owner;
}

void Api::Impl::handle(net::HttpRequest request, Respond respond) {
  if (deps_.masker && wants_masked_view(request)) {
    respond = [masker = deps_.masker, inner = std::move(respond)](net::HttpResponse r) mutable {
      inner(masked_response(*masker, std::move(r)));
    };
  }
  if (!running_) {
    respond(to_response(unavailable("The API is not running (starting or shutting down)")));
    return;
  }
  auto match = router_.match(request.method, request.path());
  if (!match) {
    respond(to_response(match.error()));
    return;
  }
  const Route& route = *match->route;
  Call call{std::move(request), std::move(match->params), {}};
  if (route.requires_auth) {
    auto actor = authenticate(call, route);
    if (!actor) {
      count_unauthorized();
      ApiError error =
          api_error(401, "unauthorized",
                    "A valid API token is required: send 'Authorization: Bearer <token>'");
      error.headers.push_back({"WWW-Authenticate", "Bearer"});
      respond(to_response(error));
      return;
    }
    call.actor = std::move(*actor);
  }
  // Before the Idempotency-Key: a refused body is no answer to replay.
  if (auto refused = body_media_type_error(call.request)) {
    respond(to_response(*refused));
    return;
  }
  auto key = call.request.headers.get("Idempotency-Key");
  if (key && call.request.method == "POST" && route.pattern != kPublishPattern) {
    with_idempotency(std::move(call), route, std::string(*key), std::move(respond));
    return;
  }
  dispatch(std::move(call), route, std::move(respond));
}

void Api::Impl::dispatch(Call call, const Route& route, Respond respond) {
  // Handlers report expected failures as values; an exception here is a bug (or a JSON
  // access we did not guard), answered 500 instead of taking the server down.
  auto shared = std::make_shared<Respond>(std::move(respond));
  try {
    route.handler(call, [shared](net::HttpResponse r) { (*shared)(std::move(r)); });
  } catch (const std::exception& e) {
    if (deps_.logger != nullptr) deps_.logger->error("api.handler_exception", {{"what", e.what()}});
    if (*shared) (*shared)(to_response(api_error(500, "internal", "Internal error")));
  }
}

std::expected<nlohmann::json, ApiError> Api::Impl::body_of(const Call& call) const {
  return parse_json_object(call.request.body, deps_.options.max_json_depth);
}

std::expected<store::PageRequest, ApiError> Api::Impl::page_of(const Call& call,
                                                               bool newest_first) const {
  store::PageRequest page;
  page.descending = newest_first;
  if (auto limit = call.request.query_param("limit")) {
    char* end = nullptr;
    const long n = std::strtol(limit->c_str(), &end, 10);
    if (limit->empty() || *end != '\0' || n < 1 || n > store::PageRequest::kMaxLimit) {
      return std::unexpected(
          query_validation_error({{"limit", "must be an integer between 1 and " +
                                                std::to_string(store::PageRequest::kMaxLimit)}}));
    }
    page.limit = static_cast<int>(n);
  }
  if (auto it = call.request.query_param("iterator"); it && !it->empty()) page.iterator = *it;
  if (auto order = call.request.query_param("order")) {
    if (*order == "ascending") {
      page.descending = false;
    } else if (*order == "descending") {
      page.descending = true;
    } else {
      return std::unexpected(
          query_validation_error({{"order", "must be ascending or descending"}}));
    }
  }
  return page;
}

std::expected<store::Application, ApiError> Api::Impl::app_of(const Call& call) const {
  const auto& id = call.param("app_id");
  auto app = deps_.store.get_application(id);
  if (!app) return std::unexpected(from_store_error(app.error(), "application '" + id + "'"));
  return *app;
}

std::expected<store::Endpoint, ApiError> Api::Impl::endpoint_of(
    const Call& call, const store::Application& app) const {
  const auto& id = call.param("endpoint_id");
  auto ep = deps_.store.get_endpoint(app.id, id);
  if (!ep) return std::unexpected(from_store_error(ep.error(), "endpoint '" + id + "'"));
  return *ep;
}

std::expected<AppEndpoint, ApiError> Api::Impl::app_endpoint_of(const Call& call) const {
  auto app = app_of(call);
  if (!app) return std::unexpected(app.error());
  auto ep = endpoint_of(call, *app);
  if (!ep) return std::unexpected(ep.error());
  return AppEndpoint{*std::move(app), *std::move(ep)};
}

std::expected<store::Message, ApiError> Api::Impl::message_of(const Call& call,
                                                              const std::string& app_id) const {
  const auto& id = call.param("msg_id");
  auto msg = deps_.store.get_message(app_id, id);
  if (!msg) return std::unexpected(from_store_error(msg.error(), "message '" + id + "'"));
  return *std::move(msg);
}

std::string Api::Impl::new_secret() const {
  std::array<std::uint8_t, 24> bytes{};
  deps_.random.fill(bytes);
  return "whsec_" + base64_encode(ByteView(bytes.data(), bytes.size()));
}

std::string Api::Impl::new_ed25519_secret() const {
  std::array<std::uint8_t, 32> seed{};
  deps_.random.fill(seed);
  return "whsk_" + base64_encode(ByteView(seed.data(), seed.size()));
}

}  // namespace hookd::api
