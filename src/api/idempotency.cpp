// Idempotency-Key handling for POST routes (IETF httpapi idempotency-key draft, A12):
// the key is scoped by the authenticated token; the fingerprint is SHA-256 over method,
// path and body. Same key + same fingerprint → the first response replayed with
// `Idempotent-Replayed: true`; different fingerprint → 422 (alerted: metric + log); first
// request still in flight → 409. Responses below 500 are kept for the configured TTL;
// 5xx responses release the key so the client's retry runs again.
#include <utility>

#include "api/api_impl.hpp"
#include "ops/hookd_metrics.hpp"
#include "ops/log.hpp"

namespace hookd::api {
namespace {

constexpr std::size_t kMaxKeyLength = 255;

// Headers worth replaying: the content type and hookd's own.
store::Headers replayable_headers(const net::HttpResponse& response) {
  store::Headers out;
  if (auto ct = response.headers.get("Content-Type")) out["Content-Type"] = std::string(*ct);
  if (auto loc = response.headers.get("Location")) out["Location"] = std::string(*loc);
  return out;
}

net::HttpResponse replay_of(const store::IdempotencyRecord& record) {
  net::HttpResponse response;
  response.status = static_cast<int>(record.response_status.value_or(200));
  for (const auto& [name, value] : record.response_headers) response.headers.set(name, value);
  response.headers.set("Idempotent-Replayed", "true");
  response.body = record.response_body;
  return response;
}

}  // namespace

void Api::Impl::with_idempotency(Call call, const Route& route, std::string key, Respond respond) {
  auto count = [this](const char* outcome) {
    if (deps_.metrics != nullptr) deps_.metrics->idempotency.with({outcome}).inc();
  };
  if (key.empty() || key.size() > kMaxKeyLength) {
    respond(to_response(bad_request("Idempotency-Key must be 1 to " +
                                    std::to_string(kMaxKeyLength) + " characters")));
    return;
  }
  const std::string scope = "api|" + call.actor;
  const std::string fingerprint = sha256_hex(
      call.request.method + "\n" + std::string(call.request.path()) + "\n" + call.request.body);
  const auto ttl = deps_.options.idempotency_ttl.count();
  auto begun = deps_.store.idem_begin(scope, key, fingerprint, ttl);
  if (!begun) {
    respond(to_response(from_store_error(begun.error())));
    return;
  }
  using Outcome = store::IdempotencyBegin::Outcome;
  switch (begun->outcome) {
    case Outcome::kReplay:
      count("replayed");
      respond(replay_of(begun->record));
      return;
    case Outcome::kInFlight:
      count("in_progress");
      respond(to_response(api_error(409, "idempotency_in_flight",
                                    "A request with this Idempotency-Key is still being processed; "
                                    "retry after it finished")));
      return;
    case Outcome::kMismatch:
      count("conflict");
      if (idempotency_alerts_ != nullptr) idempotency_alerts_->get().inc();
      if (deps_.logger != nullptr) {
        deps_.logger->warn("api.idempotency_key_reused",
                           {{"actor", call.actor}, {"path", std::string(call.request.path())}});
      }
      respond(to_response(api_error(422, "idempotency_key_reused",
                                    "This Idempotency-Key was already used with a different "
                                    "request (method, path or body); use a new key")));
      return;
    case Outcome::kUnknown:
      count("conflict");
      respond(to_response(api_error(409, "outcome-unknown",
                                    "The outcome of the first request with this Idempotency-Key "
                                    "is unknown")));
      return;
    case Outcome::kStarted:
      break;
  }
  count("stored");
  auto finish = [this, scope, key, respond = std::move(respond)](net::HttpResponse r) mutable {
    if (r.status < 500) {
      auto done = deps_.store.idem_finish(scope, key, r.status, replayable_headers(r), r.body);
      if (!done && deps_.logger != nullptr) {
        deps_.logger->warn("api.idempotency_finish_failed", {{"error", done.error().message}});
      }
    } else {
      (void)deps_.store.idem_release(scope, key);  // let the client's retry run again
    }
    respond(std::move(r));
  };
  dispatch(std::move(call), route, std::move(finish));
}

}  // namespace hookd::api
