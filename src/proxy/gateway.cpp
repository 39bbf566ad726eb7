#include "proxy/gateway.hpp"

#include <algorithm>
#include <utility>

#include "core/alert_types.hpp"
#include "core/crypto.hpp"
#include "net/body_spool.hpp"
#include "proxy/key_rules.hpp"

namespace hookd::proxy {
namespace {

constexpr std::chrono::milliseconds kLeaseMargin{5'000};

bool is_timeout(net::TransportError e) {
  return e == net::TransportError::kTimeout || e == net::TransportError::kConnectTimeout;
}

net::HttpResponse with_retry_after(net::HttpResponse response, int seconds) {
  response.headers.set("Retry-After", std::to_string(seconds));
  return response;
}

}  // namespace

struct Gateway::Call {
  const ProxyRoute* route = nullptr;
  net::HttpRequest request;
  std::string rest;
  store::ProxyClaim claim;
  std::string key_id;
  Respond respond;
};

net::HttpResponse answer_of(const net::AttemptResult& result) {
  net::HttpResponse response;
  response.status = result.status;
  for (auto& [name, value] : end_to_end_headers(result.headers)) response.headers.add(name, value);
  response.body = result.body;
  response.file_body = result.body_file;  // a spooled answer is streamed from its file
  return response;
}

net::HttpResponse replay_of(const store::ProxyKey& key) {
  net::HttpResponse response;
  response.status = static_cast<int>(key.status.value_or(200));
  for (const auto& [name, value] : key.headers) response.headers.add(name, value);
  response.headers.set("Idempotent-Replayed", "true");
  response.body = key.body;
  return response;
}

std::chrono::milliseconds Gateway::lease_of(const ProxyRoute& route) {
  return route.timeout + route.connect_timeout + kLeaseMargin;
}

Gateway::Gateway(GatewayOptions options, GatewayDeps deps)
    : options_(std::move(options)),
      deps_(deps),
      committer_(deps.store, options_.max_batch, options_.max_queue) {
  for (const auto& route : options_.routes) routes_.emplace(route.name, route);
}

Gateway::~Gateway() { stop(); }

Status Gateway::start() {
  if (started_) return {};
  auto orphaned = deps_.store.proxy_orphan_owner(options_.owner);
  if (!orphaned) return std::unexpected(orphaned.error());
  if (*orphaned > 0 && deps_.logger != nullptr) {
    deps_.logger->warn("proxy.orphaned_keys_unknown",
                       {{"owner", options_.owner}, {"keys", std::to_string(*orphaned)}});
  }
  if (*orphaned > 0) {
    ops::raise_alert(deps_.alerts, alert_types::kUnknownOutcome,
                     {{"owner", options_.owner},
                      {"keys", *orphaned},
                      {"reason", "claimed by this node before it stopped without recording"}});
  }
  committer_.start();
  started_ = true;
  return {};
}

void Gateway::stop() {
  committer_.stop();
  started_ = false;
}

void Gateway::count(std::string_view proxy, std::string_view outcome) const {
  if (deps_.metrics != nullptr) deps_.metrics->count(proxy, outcome);
}

void Gateway::handle(net::HttpRequest request, Respond respond) {
  auto target = split_proxied_target(request.target);
  const auto found = target ? routes_.find(target->name) : routes_.end();
  if (found == routes_.end()) {
    return respond(
        gateway_problem(404, problem::kNoProxy, "no proxy is configured under this path"));
  }
  const ProxyRoute& route = found->second;
  const bool keyed_method =
      std::find(route.methods.begin(), route.methods.end(), request.method) != route.methods.end();
  const auto header = request.headers.get("Idempotency-Key");
  if (!keyed_method || (!header && !route.require_key)) {
    return passthrough(route, std::move(request), std::move(target->rest), std::move(respond));
  }
  if (!header) {
    count(route.name, "rejected");
    return respond(
        gateway_problem(400, problem::kKeyMissing, "this request needs an Idempotency-Key header"));
  }
  auto key = parse_idempotency_key(*header);
  if (!key) {
    count(route.name, "rejected");
    return respond(gateway_problem(400, problem::kKeyInvalid, key.error().message));
  }
  keyed(route, std::move(request), std::move(target->rest), std::move(*key), std::move(respond));
}

net::OutboundRequest Gateway::upstream_request(const ProxyRoute& route,
                                               const net::HttpRequest& request,
                                               const std::string& rest) const {
  net::OutboundRequest out;
  out.method = request.method;
  out.url = upstream_url(route.upstream, rest);
  for (const auto& h : request.headers) {
    if (!is_hop_by_hop(h.name, request.headers)) out.headers.emplace_back(h.name, h.value);
  }
  out.body = request.body;
  out.body_file = request.spooled;
  // Answers that cannot be stored are not kept in memory either.
  out.spool_response_above = route.max_stored_body;
  out.connect_timeout = route.connect_timeout;
  out.total_timeout = route.timeout;
  return out;
}

void Gateway::passthrough(const ProxyRoute& route, net::HttpRequest request, std::string rest,
                          Respond respond) {
  auto shared = std::make_shared<Respond>(std::move(respond));
  const std::string name = route.name;
  deps_.sender.send(upstream_request(route, request, rest),
                    [this, shared, name](net::AttemptResult result) {
                      count(name, "passthrough");
                      if (result.ok()) return (*shared)(answer_of(result));
                      (*shared)(gateway_problem(is_timeout(result.error) ? 504 : 502,
                                                problem::kUnreachable, result.error_detail));
                    });
}

void Gateway::keyed(const ProxyRoute& route, net::HttpRequest request, std::string rest,
                    std::string key, Respond respond) {
  auto call = std::make_shared<Call>();
  call->route = &route;
  call->claim.proxy = route.name;
  call->claim.tenant = tenant_of(request.headers, route.tenant_header);
  call->claim.key = std::move(key);
  call->claim.fingerprint = request_fingerprint(request.method, rest, body_sha256(request));
  call->claim.owner = options_.owner;
  call->claim.lease_ms = lease_of(route).count();
  call->request = std::move(request);
  call->rest = std::move(rest);
  call->respond = std::move(respond);
  store::ProxyClaim claim = call->claim;
  const bool queued = committer_.claim(
      std::move(claim), [this, call](auto claimed) { on_claimed(call, std::move(claimed)); });
  if (!queued) {
    count(route.name, "unavailable");
    call->respond(with_retry_after(
        gateway_problem(503, problem::kUnavailable, "the gateway is busy or stopping; retry"), 1));
  }
}

void Gateway::on_claimed(std::shared_ptr<Call> call, Result<store::ProxyClaimResult> claimed) {
  if (!claimed) {
    count(call->route->name, "unavailable");
    return call->respond(
        with_retry_after(gateway_problem(503, problem::kUnavailable,
                                         "the key could not be stored (" + claimed.error().message +
                                             "); nothing was sent upstream, retry"),
                         1));
  }
  if (!claimed->claimed) return answer_seen(*call, claimed->key);
  call->key_id = claimed->key.id;
  send_upstream(std::move(call));
}

void Gateway::answer_seen(Call& call, const store::ProxyKey& key) {
  const std::string& proxy = call.route->name;
  switch (verdict_for(key, call.claim.fingerprint)) {
    case Verdict::kReplay:
      count(proxy, "replayed");
      return call.respond(replay_of(key));
    case Verdict::kMismatch:
      count(proxy, "mismatch");
      if (deps_.logger != nullptr) {
        deps_.logger->warn("proxy.idempotency_key_mismatch",
                           {{"proxy", proxy}, {"key_id", key.id}, {"path", call.rest}});
      }
      ops::raise_alert(deps_.alerts, alert_types::kIdempotencyMismatch,
                       {{"proxy", proxy}, {"keyId", key.id}, {"path", call.rest}});
      return call.respond(gateway_problem(422, problem::kMismatch,
                                          "this Idempotency-Key was used with another request "
                                          "(method, path, query or body); nothing was sent"));
    case Verdict::kInProgress:
      count(proxy, "in_progress");
      return call.respond(with_retry_after(
          gateway_problem(409, problem::kInProgress,
                          "a request with this Idempotency-Key is still in progress"),
          1));
    case Verdict::kUnknown:
      count(proxy, "unknown");
      return call.respond(gateway_problem(
          409, problem::kUnknown,
          "the outcome of the first request with this Idempotency-Key is unknown (it may have "
          "been executed); it is not sent again until the key is resolved (key " +
              key.id + ")"));
    case Verdict::kNotReplayable:
      count(proxy, "not_replayable");
      return call.respond(gateway_problem(
          409, problem::kNotReplayable,
          "the first request with this Idempotency-Key was executed, but its answer was too "
          "large to keep (" +
              std::to_string(key.body_size) + " bytes); it is not sent again"));
  }
}

void Gateway::send_upstream(std::shared_ptr<Call> call) {
  auto request = upstream_request(*call->route, call->request, call->rest);
  call->request.body.clear();  // sent once; the fingerprint already holds its hash
  call->request.spooled.reset();
  deps_.sender.send(std::move(request), [this, call](net::AttemptResult result) mutable {
    on_answer(std::move(call), std::move(result));
  });
}

void Gateway::on_answer(std::shared_ptr<Call> call, net::AttemptResult result) {
  const ProxyRoute& route = *call->route;
  if (result.request_sent && deps_.metrics != nullptr) {
    deps_.metrics->upstream(route.name, result.duration);
  }
  store::ProxyKeyOutcome outcome;
  outcome.id = call->key_id;
  outcome.owner = options_.owner;
  if (!result.ok() && !result.request_sent) {
    outcome.to = store::ProxyKeyOutcome::To::kReleased;
    return record(std::move(call), std::move(outcome),
                  gateway_problem(is_timeout(result.error) ? 504 : 502, problem::kUnreachable,
                                  "nothing was sent to the upstream (" + result.error_detail +
                                      "); the key was released, retry"),
                  "not_sent");
  }
  if (!result.ok()) {
    outcome.to = store::ProxyKeyOutcome::To::kUnknown;
    ops::raise_alert(
        deps_.alerts, alert_types::kUnknownOutcome,
        {{"proxy", route.name}, {"keyId", call->key_id}, {"reason", result.error_detail}});
    return record(
        std::move(call), std::move(outcome),
        gateway_problem(
            result.error == net::TransportError::kTimeout ? 504 : 502, problem::kUnknown,
            "the request was sent but no complete answer came back (" + result.error_detail +
                "); its outcome is unknown and it is not sent again"),
        "unknown");
  }
  if (result.status == 429 || result.status == 503) {
    outcome.to = store::ProxyKeyOutcome::To::kReleased;
    return record(std::move(call), std::move(outcome), answer_of(result), "released");
  }
  outcome.status = result.status;
  outcome.headers = end_to_end_headers(result.headers);
  outcome.ttl_ms = route.ttl.count();
  if (result.truncated) {
    outcome.to = store::ProxyKeyOutcome::To::kNotReplayable;
    outcome.body_size = -1;  // more than max_response_body: not read to the end
    return record(std::move(call), std::move(outcome),
                  gateway_problem(502, problem::kTooLarge,
                                  "the upstream's answer is larger than max_response_body (" +
                                      std::to_string(route.max_response_body) +
                                      " bytes); it was executed and is not sent again"),
                  "too_large");
  }
  const auto& file = result.body_file;
  const std::uint64_t size = file ? file->size() : result.body.size();
  outcome.body_size = static_cast<std::int64_t>(size);
  outcome.body_sha256 = file ? file->sha256_hex() : crypto::sha256_hex(result.body);
  if (size > route.max_stored_body) {
    outcome.to = store::ProxyKeyOutcome::To::kNotReplayable;
  } else if (auto stored = file ? file->read_all() : Result<std::string>(result.body); stored) {
    outcome.to = store::ProxyKeyOutcome::To::kCompleted;
    outcome.body = std::move(*stored);
  } else {  // the spool file could not be read back: keep what is known, never re-run
    outcome.to = store::ProxyKeyOutcome::To::kNotReplayable;
  }
  record(std::move(call), std::move(outcome), answer_of(result), "forwarded");
}

void Gateway::record(std::shared_ptr<Call> call, store::ProxyKeyOutcome outcome,
                     net::HttpResponse answer, std::string_view metric) {
  auto pending = std::make_shared<net::HttpResponse>(std::move(answer));
  const std::string proxy = call->route->name;
  const std::string key_id = call->key_id;
  auto not_recorded = [this, proxy, key_id](const std::string& why) {
    if (deps_.logger != nullptr) {
      deps_.logger->error("proxy.outcome_not_recorded",
                          {{"proxy", proxy}, {"key_id", key_id}, {"error", why}});
    }
    count(proxy, "unknown");
    ops::raise_alert(deps_.alerts, alert_types::kUnknownOutcome,
                     {{"proxy", proxy}, {"keyId", key_id}, {"reason", "not recorded: " + why}});
    return gateway_problem(502, problem::kUnknown,
                           "the upstream's answer could not be recorded (" + why +
                               "); the key's outcome is unknown and it is not sent again");
  };
  const bool queued = committer_.record(
      std::move(outcome), [this, call, pending, metric, not_recorded](auto recorded) mutable {
        if (!recorded) return call->respond(not_recorded(recorded.error().message));
        count(call->route->name, metric);
        call->respond(std::move(*pending));
      });
  if (!queued) call->respond(not_recorded("the gateway is busy or stopping"));
}

}  // namespace hookd::proxy
