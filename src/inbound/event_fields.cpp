#include "inbound/event_fields.hpp"

#include <algorithm>
#include <charconv>

#include "inbound/business_key.hpp"

namespace hookd::inbound {
namespace {

bool needs_json(const Source& s) {
  const auto& c = s.settings;
  return c.event_id.starts_with('/') || !c.entity_key.empty() || !c.sequence.empty() ||
         !c.depends_on.empty() || !c.state.empty() || s.business_key.has_value();
}

std::optional<std::int64_t> integer_of(const nlohmann::json& v) {
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= INT64_MAX) {
    return static_cast<std::int64_t>(v.get<std::uint64_t>());
  }
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    std::int64_t out = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec == std::errc{} && end == s.data() + s.size()) return out;
  }
  return std::nullopt;
}

std::optional<std::int64_t> header_seconds_ms(const net::HttpHeaders& headers,
                                              std::string_view name) {
  const auto v = headers.get(name);
  if (!v) return std::nullopt;
  std::int64_t secs = 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), secs);
  if (ec != std::errc{} || end != v->data() + v->size()) return std::nullopt;
  return secs * 1000;
}

std::optional<std::int64_t> event_time(const Source& s, const net::HttpHeaders& headers,
                                       const nlohmann::json* body) {
  if (s.settings.verification != Verification::kScheme) return std::nullopt;
  const auto& scheme = s.settings.scheme;
  switch (scheme.kind) {
    case SchemeKind::kStandard:
    case SchemeKind::kStandardEd25519:
      if (auto t = header_seconds_ms(headers, "webhook-timestamp")) return t;
      return header_seconds_ms(headers, "svix-timestamp");
    case SchemeKind::kHmacHexTs:
      return header_seconds_ms(headers, scheme.hmac_hex_ts.timestamp_header);
    case SchemeKind::kHmac:
      if (scheme.hmac.timestamp_header.empty()) return std::nullopt;
      return header_seconds_ms(headers, scheme.hmac.timestamp_header);
    case SchemeKind::kStripe:
      if (body != nullptr) {
        if (const auto* created = at_pointer(*body, "/created")) {
          if (auto secs = integer_of(*created)) return *secs * 1000;
        }
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

Result<std::string> cloudevent_id(const net::HttpHeaders& headers, const nlohmann::json* body) {
  std::optional<std::string> source;
  std::optional<std::string> id;
  if (is_structured_cloudevent(headers)) {
    if (body == nullptr) return fail(ErrorCode::kInvalidArgument, "the CloudEvent is not JSON");
    if (const auto* s = at_pointer(*body, "/source")) source = scalar_text(*s);
    if (const auto* i = at_pointer(*body, "/id")) id = scalar_text(*i);
  } else {
    if (auto s = headers.get("ce-source")) source = std::string(*s);
    if (auto i = headers.get("ce-id")) id = std::string(*i);
  }
  if (!source || source->empty() || !id || id->empty()) {
    return fail(ErrorCode::kInvalidArgument,
                "a CloudEvent needs the source and id attributes (ce-source/ce-id headers in "
                "binary mode, \"source\"/\"id\" in structured mode)");
  }
  return *source + "|" + *id;
}

Result<std::string> plain_event_id(const Source& s, const net::HttpHeaders& headers,
                                   const nlohmann::json* body) {
  const auto& where = s.settings.event_id;
  std::optional<std::string> id;
  if (where.starts_with('/')) {
    if (body != nullptr) {
      if (const auto* v = at_pointer(*body, where)) id = scalar_text(*v);
    }
  } else if (auto h = headers.get(where)) {
    id = std::string(*h);
  } else if (where == "webhook-id") {
    if (auto svix = headers.get("svix-id")) id = std::string(*svix);
  }
  if (!id || id->empty()) {
    return fail(ErrorCode::kInvalidArgument, "the event id (" + where + ") is missing");
  }
  return *id;
}

// Event ids and business keys travel as header values of the forward: no control characters.
bool header_safe(std::string_view text) {
  return std::ranges::none_of(text, [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c < 0x20 || c == 0x7f;
  });
}

}  // namespace

bool is_structured_cloudevent(const net::HttpHeaders& headers) {
  const auto type = headers.get("Content-Type");
  if (!type) return false;
  std::string lower;
  for (char ch : *type) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return lower.starts_with("application/cloudevents+json");
}

std::optional<nlohmann::json> parse_json_bounded(std::string_view body, int max_depth) {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char ch : body) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (ch == '\\') {
        escaped = true;
      } else if (ch == '"') {
        in_string = false;
      }
      continue;
    }
    if (ch == '"') {
      in_string = true;
    } else if (ch == '{' || ch == '[') {
      if (++depth > max_depth) return std::nullopt;
    } else if (ch == '}' || ch == ']') {
      --depth;
    }
  }
  auto parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return std::nullopt;
  return parsed;
}

void read_body_fields(const Source& s, const nlohmann::json& body, EventFields& out) {
  const auto& c = s.settings;
  if (!c.entity_key.empty()) {
    if (const auto* v = at_pointer(body, c.entity_key)) out.entity_key = scalar_text(*v);
  }
  if (!c.sequence.empty()) {
    if (const auto* v = at_pointer(body, c.sequence)) out.sequence = integer_of(*v);
  }
  if (!c.state.empty()) {
    if (const auto* v = at_pointer(body, c.state)) out.state = scalar_text(*v);
  }
  if (!c.depends_on.empty()) {
    if (const auto* v = at_pointer(body, c.depends_on)) {
      if (v->is_array()) {
        for (const auto& item : *v) {
          if (auto text = scalar_text(item); text && !text->empty())
            out.depends_on.push_back(*text);
        }
      } else if (auto text = scalar_text(*v); text && !text->empty()) {
        out.depends_on.push_back(*text);
      }
    }
  }
  if (s.business_key) out.business_key = s.business_key->render(body);
  if (out.business_key &&
      (out.business_key->size() > kMaxEventIdBytes || !header_safe(*out.business_key))) {
    out.business_key.reset();
  }
}

Result<EventFields> extract_fields(const Source& s, const net::HttpHeaders& headers,
                                   std::string_view body, int max_depth) {
  const bool cloudevents = s.settings.verification == Verification::kCloudEvents;
  std::optional<nlohmann::json> json;
  if (needs_json(s) || (cloudevents && is_structured_cloudevent(headers))) {
    json = parse_json_bounded(body, max_depth);
    if (!json) {
      return fail(ErrorCode::kInvalidArgument, "the body is not JSON (or nested deeper than " +
                                                   std::to_string(max_depth) +
                                                   "), but this source reads fields from it");
    }
  }
  const nlohmann::json* doc = json ? &*json : nullptr;
  auto id = s.settings.cloudevents_identity ? cloudevent_id(headers, doc)
                                            : plain_event_id(s, headers, doc);
  if (!id) return std::unexpected(id.error());
  if (id->size() > kMaxEventIdBytes) {
    return fail(ErrorCode::kInvalidArgument, "the event id is longer than 512 bytes");
  }
  if (!header_safe(*id)) {
    return fail(ErrorCode::kInvalidArgument, "the event id contains control characters");
  }
  EventFields out;
  out.event_id = std::move(*id);
  if (doc != nullptr) read_body_fields(s, *doc, out);
  out.event_time_ms = event_time(s, headers, doc);
  return out;
}

}  // namespace hookd::inbound
