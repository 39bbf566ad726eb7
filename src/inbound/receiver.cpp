#include "inbound/receiver.hpp"

#include <algorithm>
#include <cctype>

#include "inbound/event_fields.hpp"
#include "inbound/verification.hpp"

namespace hookd::inbound {
namespace {

net::HttpResponse json_response(int status, std::string body) {
  net::HttpResponse r;
  r.status = status;
  r.headers.set("Content-Type", "application/json");
  r.headers.set("Cache-Control", "no-store");
  r.body = std::move(body);
  return r;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

store::InboxEvent inbox_event(const Source& source, EventFields fields, net::HttpRequest& request) {
  store::InboxEvent ev;
  ev.source = source.name();
  ev.business_key = fields.business_key ? std::move(fields.business_key)
                                        : std::optional(source.name() + ":" + fields.event_id);
  ev.event_id = std::move(fields.event_id);
  ev.entity_key = std::move(fields.entity_key);
  ev.sequence = fields.sequence;
  ev.event_time = fields.event_time_ms;
  ev.depends_on = std::move(fields.depends_on);
  ev.headers = kept_headers(source, request.headers);
  ev.payload = std::move(request.body);
  return ev;
}

}  // namespace

store::Headers kept_headers(const Source& source, const net::HttpHeaders& headers) {
  store::Headers kept;
  if (auto type = headers.get("Content-Type")) kept["content-type"] = std::string(*type);
  for (const auto& name : source.settings.forward.headers) {
    if (auto value = headers.get(name)) kept[lower(name)] = std::string(*value);
  }
  if (source.settings.verification == Verification::kCloudEvents) {
    for (const auto& h : headers) {
      const auto name = lower(h.name);
      if (name.starts_with("ce-")) kept[name] = h.value;
    }
  }
  return kept;
}

void Receiver::handle(net::HttpRequest request, Respond respond) const {
  const std::string_view path = request.path();
  const std::string_view name =
      path.starts_with(kInboundPrefix) ? path.substr(kInboundPrefix.size()) : std::string_view{};
  const auto it = deps_.sources.find(name);
  if (it == deps_.sources.end()) {
    return reject("_unknown", 404, "unknown_source", "no inbound source at this path", respond);
  }
  const Source& source = *it->second;
  if (request.method == "OPTIONS") return respond(handshake(source, request));
  if (request.method != "POST") {
    auto r = net::problem_response(405, "inbound sources accept POST (and OPTIONS)");
    r.headers.set("Allow", "POST, OPTIONS");
    if (deps_.metrics) deps_.metrics->rejected(source.name(), "method");
    return respond(std::move(r));
  }
  receive(source, std::move(request), std::move(respond));
}

void Receiver::receive(const Source& source, net::HttpRequest request, Respond respond) const {
  if (request.body.size() > source.settings.max_body_bytes) {
    return reject(
        source.name(), 413, "too_large",
        "the body is larger than " + std::to_string(source.settings.max_body_bytes) + " bytes",
        respond);
  }
  // Verification runs on the raw bytes, before anything is parsed.
  if (auto ok = verify_request(source, request.headers, request.body, deps_.now_unix()); !ok) {
    return reject(source.name(), 401, ok.error().reason, ok.error().detail, respond);
  }
  auto fields = extract_fields(source, request.headers, request.body, deps_.max_json_depth);
  if (!fields) return reject(source.name(), 400, "malformed", fields.error().message, respond);
  const std::string source_name = source.name();
  auto event = inbox_event(source, std::move(*fields), request);
  auto shared = std::make_shared<Respond>(std::move(respond));
  const bool queued = deps_.batcher.submit(
      std::move(event), [this, source_name, shared](Result<store::InboxInsertOutcome> r) {
        if (!r) {
          if (deps_.logger) {
            deps_.logger->warn("inbound.store_failed",
                               {{"source", source_name}, {"error", r.error().message}});
          }
          return reject(source_name, 503, "unavailable", "the event could not be stored; retry",
                        *shared);
        }
        if (deps_.metrics) {
          r->inserted ? deps_.metrics->accepted(source_name)
                      : deps_.metrics->duplicate(source_name);
        }
        (*shared)(json_response(200, R"({"id":")" + net::json_escape(r->id) + R"(","duplicate":)" +
                                         (r->inserted ? "false" : "true") + "}"));
      });
  if (!queued) {
    reject(source_name, 503, "unavailable", "the inbound queue is full or stopping; retry",
           *shared);
  }
}

void Receiver::reject(std::string_view source, int status, std::string_view reason,
                      std::string_view detail, Respond& respond) const {
  if (deps_.metrics) deps_.metrics->rejected(source, reason);
  if (deps_.logger && status != 503) {
    deps_.logger->info(
        "inbound.rejected",
        {{"source", source}, {"status", status}, {"reason", reason}, {"detail", detail}});
  }
  auto r = net::problem_response(status, detail);
  // The reason code as a member of the problem object, e.g. "reason":"timestamp_too_old".
  if (!r.body.empty() && r.body.back() == '}') {
    r.body.pop_back();
    r.body += R"(,"reason":")" + net::json_escape(reason) + "\"}";
  }
  if (status == 503) r.headers.set("Retry-After", "1");
  respond(std::move(r));
}

net::HttpResponse Receiver::handshake(const Source& source, const net::HttpRequest& request) const {
  const auto origin = request.headers.get("WebHook-Request-Origin");
  if (!origin) {
    net::HttpResponse r;
    r.status = 204;
    r.headers.set("Allow", "POST, OPTIONS");
    return r;
  }
  const auto& allowed = source.settings.allowed_origins;
  const bool ok = std::ranges::any_of(
      allowed, [&](const std::string& a) { return a == "*" || lower(a) == lower(*origin); });
  if (!ok) return net::problem_response(403, "this origin may not deliver to this source");
  net::HttpResponse r;
  r.status = 200;
  r.headers.set("WebHook-Allowed-Origin", std::string(*origin));
  r.headers.set("WebHook-Allowed-Rate", "*");
  r.headers.set("Allow", "POST, OPTIONS");
  return r;
}

}  // namespace hookd::inbound
