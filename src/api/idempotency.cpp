// Idempotency-Key handling for POST routes (IETF httpapi idempotency-key draft, A12):
// the key is scoped by the authenticated token; the fingerprint is SHA-256 over method,
// path and body. Same key + same fingerprint → the first response replayed with
// `Idempotent-Replayed: true`; different fingerprint → 422 (alerted: metric + log); first
// request still in flight → 409. Responses below 500 are kept for the configured TTL;
// 5xx responses release the key so the client's retry runs again.
// Publishes fold the key into their group-committed transaction (create_message); every
// other route, and a publish refused before it reaches the batch, go through
// idem_begin/idem_finish here.
#include <functional>
#include <utility>

#include "api/api_impl.hpp"
#include "core/alert_types.hpp"
#include "ops/alerts.hpp"
#include "ops/hookd_metrics.hpp"
#include "ops/log.hpp"

namespace hookd::api {
namespace {

constexpr std::size_t kMaxKeyLength = 255;

net::HttpResponse replay_of(const store::IdempotencyRecord& record) {
  net::HttpResponse response = stored_response(record);
  response.headers.set("Idempotent-Replayed", "true");
  return response;
}

}  // namespace

// Headers worth replaying: the content type and hookd's own.
store::StoredResponse to_stored(const net::HttpResponse& response) {
  store::StoredResponse out;
  out.status = response.status;
  if (auto ct = response.headers.get("Content-Type"))
    out.headers["Content-Type"] = std::string(*ct);
  if (auto loc = response.headers.get("Location")) out.headers["Location"] = std::string(*loc);
  out.body = response.body;
  return out;
}

net::HttpResponse stored_response(const store::IdempotencyRecord& record) {
  net::HttpResponse response;
  response.status = static_cast<int>(record.response_status.value_or(200));
  for (const auto& [name, value] : record.response_headers) response.headers.set(name, value);
  response.body = record.response_body;
  return response;
}

std::optional<ApiError> Api::Impl::check_idempotency_key(std::string_view key) const {
  if (!key.empty() && key.size() <= kMaxKeyLength) return std::nullopt;
  return bad_request("Idempotency-Key must be 1 to " + std::to_string(kMaxKeyLength) +
                     " characters");
}

store::PublishKey Api::Impl::idempotency_key_of(const Call& call, std::string key) const {
  store::PublishKey out;
  out.scope = "api|" + call.actor;
  out.key = std::move(key);
  out.fingerprint = sha256_hex(call.request.method + "\n" + std::string(call.request.path()) +
                               "\n" + call.request.body);
  out.ttl_ms = deps_.options.idempotency_ttl.count();
  return out;
}

void Api::Impl::count_idempotency(const char* outcome) {
  if (deps_.metrics != nullptr) deps_.metrics->idempotency.with({outcome}).inc();
}

net::HttpResponse Api::Impl::seen_key_response(const store::IdempotencyBegin& seen,
                                               const std::string& actor, std::string_view path) {
  using Outcome = store::IdempotencyBegin::Outcome;
  switch (seen.outcome) {
    case Outcome::kReplay:
      count_idempotency("replayed");
      return replay_of(seen.record);
    case Outcome::kInFlight:
      count_idempotency("in_progress");
      return to_response(api_error(409, "idempotency_in_flight",
                                   "A request with this Idempotency-Key is still being processed; "
                                   "retry after it finished"));
    case Outcome::kMismatch:
      count_idempotency("conflict");
      if (idempotency_alerts_ != nullptr) idempotency_alerts_->get().inc();
      if (deps_.logger != nullptr) {
        deps_.logger->warn("api.idempotency_key_reused",
                           {{"actor", actor}, {"path", std::string(path)}});
      }
      ops::raise_alert(deps_.alerts, alert_types::kIdempotencyMismatch,
                       {{"api", true}, {"actor", actor}, {"path", std::string(path)}});
      return to_response(api_error(422, "idempotency_key_reused",
                                   "This Idempotency-Key was already used with a different "
                                   "request (method, path or body); use a new key"));
    case Outcome::kUnknown:
    case Outcome::kStarted:  // not a seen key: a caller bug, answered as unknown
      count_idempotency("conflict");
      return to_response(api_error(409, "outcome-unknown",
                                   "The outcome of the first request with this Idempotency-Key "
                                   "is unknown"));
  }
  return to_response(api_error(500, "internal", "Internal error"));
}

// Begins the key; a seen key is answered at once, a new one lets `produce` make the answer,
// which is kept under the key (below 500) or releases it (5xx: the client's retry runs
// again). `produce` runs before this returns; `call` is not touched after it.
void Api::Impl::run_keyed(const Call& call, const store::PublishKey& k, Respond respond,
                          const std::function<void(Respond)>& produce) {
  auto begun = deps_.store.idem_begin(k.scope, k.key, k.fingerprint, k.ttl_ms);
  if (!begun) return respond(to_response(from_store_error(begun.error())));
  if (begun->outcome != store::IdempotencyBegin::Outcome::kStarted) {
    return respond(seen_key_response(*begun, call.actor, call.request.path()));
  }
  count_idempotency("stored");
  produce([this, k, respond = std::move(respond)](net::HttpResponse r) mutable {
    if (r.status < 500) {
      const auto stored = to_stored(r);
      auto done = deps_.store.idem_finish(k.scope, k.key, r.status, stored.headers, r.body);
      if (!done && deps_.logger != nullptr) {
        deps_.logger->warn("api.idempotency_finish_failed", {{"error", done.error().message}});
      }
    } else {
      (void)deps_.store.idem_release(k.scope, k.key);
    }
    respond(std::move(r));
  });
}

void Api::Impl::with_idempotency(Call call, const Route& route, std::string key, Respond respond) {
  if (auto invalid = check_idempotency_key(key)) return respond(to_response(*invalid));
  const store::PublishKey k = idempotency_key_of(call, std::move(key));
  run_keyed(call, k, std::move(respond),
            [&](Respond finish) { dispatch(std::move(call), route, std::move(finish)); });
}

}  // namespace hookd::api
