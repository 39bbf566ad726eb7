// Mapping between database rows and the model structs, written once for both backends:
// JSON encoding of lists, header maps and header pairs (what the list / headers columns
// hold), and one reader per record, taking its columns in `row_columns.hpp` order from any
// row type with the small `RowSource` interface (SQLite: `sqlite::Stmt`; PostgreSQL:
// `postgres::Row`). The readers are function objects, so they can be passed to a backend's
// collect/single.
// Thread-safety: pure functions.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "store/model.hpp"
#include "store/row_columns.hpp"

namespace hookd::store {

std::optional<std::string> encode_list(const std::optional<std::vector<std::string>>& list);
std::string encode_list(const std::vector<std::string>& list);
std::optional<std::vector<std::string>> decode_list(const std::optional<std::string>& json);
std::string encode_headers(const Headers& headers);
Headers decode_headers(const std::string& json);
// Header pairs in wire order, duplicates kept: a JSON array of [name, value]. A pair that is
// not valid UTF-8 (obs-text from an upstream) is kept byte-exact as [name, value, "latin1"]:
// each byte is written as the code point of the same number and read back as that byte.
std::string encode_header_pairs(const HeaderPairs& headers);
HeaderPairs decode_header_pairs(const std::string& json);

// Column access by index on the current row: what a backend's row adapter provides.
template <class R>
concept RowSource = requires(const R& r, int c) {
  { r.text(c) } -> std::same_as<std::string>;
  { r.opt_text(c) } -> std::same_as<std::optional<std::string>>;
  { r.int64(c) } -> std::same_as<std::int64_t>;
  { r.opt_int64(c) } -> std::same_as<std::optional<std::int64_t>>;
  { r.boolean(c) } -> std::same_as<bool>;
  { r.bytes(c) } -> std::same_as<std::string>;  // a BLOB / BYTEA, byte-exact
};

inline constexpr auto read_application = [](const RowSource auto& s) {
  return Application{
      .id = s.text(0),
      .uid = s.opt_text(1),
      .name = s.text(2),
      .rate_limit = s.opt_int64(3),
      .metadata = s.text(4),
      .created_at = s.int64(5),
      .updated_at = s.int64(6),
  };
};

inline constexpr auto read_event_type = [](const RowSource auto& s) {
  return EventType{
      .name = s.text(0),
      .description = s.text(1),
      .archived = s.boolean(2),
      .schemas = s.text(3),
      .created_at = s.int64(4),
      .updated_at = s.int64(5),
  };
};

inline constexpr auto read_endpoint = [](const RowSource auto& s) {
  Endpoint ep;
  ep.id = s.text(0);
  ep.app_id = s.text(1);
  ep.uid = s.opt_text(2);
  ep.url = s.text(3);
  ep.description = s.text(4);
  ep.filter_types = decode_list(s.opt_text(5));
  ep.channels = decode_list(s.opt_text(6));
  ep.secrets.current = s.text(7);
  ep.secrets.previous = s.opt_text(8);
  ep.secrets.previous_expires_at = s.opt_int64(9);
  ep.rate_limit = s.opt_int64(10);
  ep.disabled = s.boolean(11);
  ep.disabled_reason = s.opt_text(12);
  ep.fifo = s.boolean(13);
  ep.headers = decode_headers(s.text(14));
  ep.retry_policy = s.opt_text(15);
  ep.connect_timeout_ms = s.opt_int64(16);
  ep.total_timeout_ms = s.opt_int64(17);
  ep.metadata = s.text(18);
  ep.created_at = s.int64(19);
  ep.updated_at = s.int64(20);
  ep.revision = s.int64(21);
  ep.header_naming = s.text(22);
  return ep;
};

inline constexpr auto read_message = [](const RowSource auto& s) {
  return Message{
      .id = s.text(0),
      .app_id = s.text(1),
      .event_type = s.text(2),
      .event_id = s.opt_text(3),
      .channels = decode_list(s.opt_text(4)),
      .payload = s.bytes(5),
      .ordering_key = s.opt_text(6),
      .sequence = s.opt_int64(7),
      .created_at = s.int64(8),
      .tags = decode_list(s.opt_text(9)),
  };
};

inline constexpr auto read_feed_item = [](const RowSource auto& s) {
  return FeedItem{
      .message = read_message(s),
      .delivery_id = s.text(10),
      .status = delivery_status_from(s.text(11)).value_or(DeliveryStatus::kPending),
  };
};

inline constexpr auto read_delivery = [](const RowSource auto& s) {
  Delivery d;
  d.id = s.text(0);
  d.msg_id = s.text(1);
  d.endpoint_id = s.text(2);
  d.app_id = s.text(3);
  d.status = delivery_status_from(s.text(4)).value_or(DeliveryStatus::kPending);
  d.attempts = s.int64(5);
  d.next_attempt_at = s.int64(6);
  d.lease_owner = s.opt_text(7);
  d.lease_until = s.opt_int64(8);
  d.first_attempt_at = s.opt_int64(9);
  d.last_attempt_at = s.opt_int64(10);
  d.last_error = s.opt_text(11);
  d.last_response_status = s.opt_int64(12);
  d.ordering_key = s.opt_text(13);
  d.sequence = s.opt_int64(14);
  d.created_at = s.int64(15);
  d.updated_at = s.int64(16);
  return d;
};

// A claimed delivery: its columns, then its endpoint's revision as of the claim.
inline constexpr auto read_claimed_delivery = [](const RowSource auto& s) {
  Delivery d = read_delivery(s);
  d.endpoint_revision = s.opt_int64(kDeliveryColumnCount);
  return d;
};

// The order a claim hands deliveries out in (RETURNING has none): oldest due first.
inline bool oldest_due_first(const Delivery& a, const Delivery& b) {
  return std::tie(a.next_attempt_at, a.id) < std::tie(b.next_attempt_at, b.id);
}

inline constexpr auto read_attempt = [](const RowSource auto& s) {
  Attempt a;
  a.id = s.text(0);
  a.delivery_id = s.text(1);
  a.msg_id = s.text(2);
  a.endpoint_id = s.text(3);
  a.app_id = s.text(4);
  a.attempted_at = s.int64(5);
  a.response_status = s.opt_int64(6);
  a.response_headers = decode_headers(s.text(7));
  a.response_body = s.bytes(8);
  a.duration_ms = s.int64(9);
  a.error = s.opt_text(10);
  a.success = s.boolean(11);
  a.trigger = attempt_trigger_from(s.text(12)).value_or(AttemptTrigger::kScheduled);
  a.url = s.text(13);
  return a;
};

inline constexpr auto read_inbox = [](const RowSource auto& s) {
  InboxEvent e;
  e.id = s.text(0);
  e.source = s.text(1);
  e.event_id = s.text(2);
  e.business_key = s.opt_text(3);
  e.entity_key = s.opt_text(4);
  e.sequence = s.opt_int64(5);
  e.event_time = s.opt_int64(6);
  e.received_at = s.int64(7);
  e.processed_at = s.opt_int64(8);
  e.status = inbox_status_from(s.text(9)).value_or(InboxStatus::kReceived);
  e.attempts = s.int64(10);
  e.next_attempt_at = s.int64(11);
  e.lease_owner = s.opt_text(12);
  e.lease_until = s.opt_int64(13);
  e.depends_on = decode_list(s.opt_text(14)).value_or(std::vector<std::string>{});
  e.last_error = s.opt_text(15);
  e.headers = decode_headers(s.text(16));
  e.payload = s.bytes(17);
  return e;
};

inline constexpr auto read_inbox_history = [](const RowSource auto& s) {
  auto from = s.opt_text(2);
  return InboxHistoryEntry{
      .inbox_id = s.text(0),
      .at = s.int64(1),
      .from = from ? inbox_status_from(*from) : std::nullopt,
      .to = inbox_status_from(s.text(3)).value_or(InboxStatus::kReceived),
      .note = s.text(4),
  };
};

inline constexpr auto read_inbox_entity = [](const RowSource auto& s) {
  return InboxEntity{
      .source = s.text(0),
      .entity_key = s.text(1),
      .last_sequence = s.opt_int64(2),
      .state = s.opt_text(3),
      .terminal = s.boolean(4),
      .updated_at = s.int64(5),
  };
};

inline constexpr auto read_idempotency = [](const RowSource auto& s) {
  IdempotencyRecord r;
  r.scope = s.text(0);
  r.key = s.text(1);
  r.fingerprint = s.text(2);
  r.state = idempotency_state_from(s.text(3)).value_or(IdempotencyState::kUnknown);
  r.response_status = s.opt_int64(4);
  r.response_headers = decode_headers(s.text(5));
  r.response_body = s.bytes(6);
  r.created_at = s.int64(7);
  r.updated_at = s.int64(8);
  r.expires_at = s.int64(9);
  return r;
};

inline constexpr auto read_proxy_key = [](const RowSource auto& s) {
  ProxyKey k;
  k.id = s.text(0);
  k.proxy = s.text(1);
  k.tenant = s.text(2);
  k.key = s.text(3);
  k.fingerprint = s.text(4);
  k.state = parse_proxy_key_state(s.text(5)).value_or(ProxyKeyState::kUnknown);
  k.owner = s.text(6);
  k.lease_until = s.int64(7);
  k.status = s.opt_int64(8);
  k.headers = decode_header_pairs(s.text(9));
  k.body = s.bytes(10);
  k.body_size = s.int64(11);
  k.body_sha256 = s.text(12);
  k.created_at = s.int64(13);
  k.updated_at = s.int64(14);
  k.expires_at = s.int64(15);
  k.resolved_by = s.text(16);
  k.reason = s.text(17);
  return k;
};

inline constexpr auto read_task = [](const RowSource auto& s) {
  return BackgroundTask{
      .id = s.text(0),
      .task = s.text(1),
      .status = s.text(2),
      .data = s.text(3),
      .app_id = s.text(4),
      .endpoint_id = s.text(5),
      .created_at = s.int64(6),
      .updated_at = s.int64(7),
  };
};

inline constexpr auto read_audit = [](const RowSource auto& s) {
  return AuditEntry{
      .id = s.text(0),
      .at = s.int64(1),
      .actor = s.text(2),
      .action = s.text(3),
      .target_type = s.text(4),
      .target_id = s.text(5),
      .reason = s.text(6),
      .before = s.opt_text(7),
      .after = s.opt_text(8),
  };
};

}  // namespace hookd::store
