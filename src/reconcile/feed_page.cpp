// FeedPage: see feed_page.hpp.
#include "reconcile/feed_page.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <chrono>
#include <cstdio>

#include "inbound/business_key.hpp"
#include "inbound/event_fields.hpp"
#include "reconcile/raw_json.hpp"
#include "wire/time.hpp"

namespace hookd::reconcile {
namespace {

using nlohmann::json;

bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

std::optional<int> digits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

std::optional<std::int64_t> parse_unix_seconds(std::string_view text) {
  double seconds = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec != std::errc() || end != text.data() + text.size() || seconds < 0) return std::nullopt;
  return static_cast<std::int64_t>(seconds * 1000.0);
}

std::optional<std::int64_t> parse_rfc3339(std::string_view t) {
  auto year = digits(t, 0, 4), month = digits(t, 5, 2), day = digits(t, 8, 2);
  auto hour = digits(t, 11, 2), minute = digits(t, 14, 2), second = digits(t, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || t[4] != '-' || t[7] != '-' ||
      (t[10] != 'T' && t[10] != 't' && t[10] != ' ') || t[13] != ':' || t[16] != ':') {
    return std::nullopt;
  }
  std::size_t at = 19;
  std::int64_t millis = 0;
  if (at < t.size() && t[at] == '.') {
    std::int64_t scale = 100;
    for (++at; at < t.size() && t[at] >= '0' && t[at] <= '9'; ++at, scale /= 10) {
      millis += (t[at] - '0') * scale;
    }
  }
  std::int64_t offset_min = 0;
  if (at < t.size() && (t[at] == 'Z' || t[at] == 'z')) {
    ++at;
  } else if (at < t.size() && (t[at] == '+' || t[at] == '-')) {
    auto oh = digits(t, at + 1, 2), om = digits(t, at + 4, 2);
    if (!oh || !om || t[at + 3] != ':') return std::nullopt;
    offset_min = (*oh * 60 + *om) * (t[at] == '-' ? -1 : 1);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != t.size()) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(*year),
                                        std::chrono::month(static_cast<unsigned>(*month)),
                                        std::chrono::day(static_cast<unsigned>(*day))};
  if (!ymd.ok() || *hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  const std::int64_t days = std::chrono::sys_days(ymd).time_since_epoch().count();
  const std::int64_t seconds = days * 86400 + *hour * 3600 + *minute * 60 + *second;
  return (seconds - offset_min * 60) * 1000 + millis;
}

std::optional<std::int64_t> item_time_of(const json& value) {
  if (value.is_number()) {
    const double seconds = value.get<double>();
    if (seconds < 0) return std::nullopt;
    return static_cast<std::int64_t>(seconds * 1000.0);
  }
  if (value.is_string()) return parse_item_time(value.get<std::string>());
  return std::nullopt;
}

// `item` parsed, `raw_item` its bytes on the page: the body is injected as those bytes.
Result<store::ReconcileItem> read_item(const ReconcileOptions& o, const inbound::Source& source,
                                       const json& item, std::string_view raw_item,
                                       std::size_t index) {
  const auto where = "feed item " + std::to_string(index);
  const json* id_value = inbound::at_pointer(item, o.item_id);
  auto id = id_value ? inbound::scalar_text(*id_value) : std::nullopt;
  if (!id || id->empty() || id->size() > inbound::kMaxEventIdBytes) {
    return fail(ErrorCode::kInvalidArgument, where + " has no usable id at " + o.item_id);
  }
  const json* body = o.item_body.empty() ? &item : inbound::at_pointer(item, o.item_body);
  if (!body) {
    return fail(ErrorCode::kInvalidArgument,
                where + " (" + *id + ") has no body at " + o.item_body);
  }
  const auto raw_body = raw_at_pointer(raw_item, o.item_body);
  if (!raw_body) {
    return fail(ErrorCode::kInternal, where + " (" + *id + "): its body's bytes were not found");
  }
  inbound::EventFields fields;
  inbound::read_body_fields(source, *body, fields);

  store::ReconcileItem out;
  auto& ev = out.event;
  ev.source = source.name();
  ev.event_id = *id;
  ev.business_key = fields.business_key ? std::move(fields.business_key)
                                        : std::optional(source.name() + ":" + *id);
  ev.entity_key = fields.entity_key;
  ev.sequence = fields.sequence;
  if (!o.item_time.empty()) {
    if (const json* t = inbound::at_pointer(item, o.item_time)) ev.event_time = item_time_of(*t);
  }
  ev.depends_on = std::move(fields.depends_on);
  ev.headers = {{"content-type", "application/json"}};
  ev.payload = std::string(*raw_body);  // never re-serialised: the provider's bytes

  auto& d = out.difference;
  d.source = source.name();
  d.kind = store::DifferenceKind::kMissing;
  d.subject = *id;
  d.event_id = *id;
  d.entity_key = fields.entity_key;
  d.local_state = "absent";
  d.remote_state = fields.state;
  d.detail = "feed item " + *id + " was never received";
  return out;
}

}  // namespace

std::string url_encode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (unreserved(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

WalkStart walk_start(const ReconcileOptions& options, const std::string& stored_cursor,
                     std::optional<std::int64_t> watermark_ms) {
  if (options.since_param.empty()) return {stored_cursor, ""};
  if (!watermark_ms) return {};
  const std::int64_t from = *watermark_ms - options.overlap.count();
  if (options.since_format == SinceFormat::kRfc3339) return {"", wire::format_time(from)};
  // Unix seconds, rounded down so that the item at the boundary is read again, not skipped.
  const std::int64_t seconds = from >= 0 ? from / 1000 : -((-from + 999) / 1000);
  return {"", std::to_string(seconds)};
}

std::string page_url(const ReconcileOptions& options, const std::string& cursor,
                     const std::string& since) {
  std::string url = options.feed_url;
  auto add = [&url](const std::string& name, const std::string& value) {
    if (value.empty()) return;
    url += url.find('?') == std::string::npos ? '?' : '&';
    url += url_encode(name) + "=" + url_encode(value);
  };
  add(options.since_param, since);
  add(options.cursor_param, cursor);
  return url;
}

std::optional<std::int64_t> parse_item_time(std::string_view text) {
  if (auto unix = parse_unix_seconds(text)) return unix;
  if (text.size() < 20) return std::nullopt;
  return parse_rfc3339(text);
}

Result<FeedPage> read_feed_page(const ReconcileOptions& o, const inbound::Source& source,
                                std::string_view body) {
  auto doc = inbound::parse_json_bounded(body, o.max_json_depth);
  if (!doc) {
    return fail(ErrorCode::kInvalidArgument, "the feed page is not JSON (or nested deeper than " +
                                                 std::to_string(o.max_json_depth) + ")");
  }
  FeedPage page;
  const json* items = inbound::at_pointer(*doc, o.items);
  if (items && !items->is_null()) {
    if (!items->is_array()) {
      return fail(ErrorCode::kInvalidArgument, "the feed page's " + o.items + " is not an array");
    }
    const auto raw_items = raw_array_elements(body, o.items);
    if (!raw_items || raw_items->size() != items->size()) {
      return fail(ErrorCode::kInternal, "the feed page's items' bytes were not found");
    }
    page.items.reserve(items->size());
    for (std::size_t i = 0; i < items->size(); ++i) {
      HOOKD_TRY(item, read_item(o, source, (*items)[i], (*raw_items)[i], i));
      if (item.event.event_time &&
          (!page.newest_item_ms || *item.event.event_time > *page.newest_item_ms)) {
        page.newest_item_ms = item.event.event_time;
      }
      page.items.push_back(std::move(item));
    }
  }
  if (const json* next = inbound::at_pointer(*doc, o.next_cursor)) {
    if (auto text = inbound::scalar_text(*next); text && !text->empty()) page.next_cursor = *text;
  }
  if (const json* done = inbound::at_pointer(*doc, o.done)) {
    page.done = done->is_boolean() ? done->get<bool>() : false;
  }
  return page;
}

}  // namespace hookd::reconcile
