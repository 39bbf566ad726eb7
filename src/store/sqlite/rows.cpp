#include "store/sqlite/rows.hpp"

#include <nlohmann/json.hpp>

namespace hookd::store::sqlite {

std::optional<std::string> encode_list(const std::optional<std::vector<std::string>>& list) {
  if (!list) return std::nullopt;
  return encode_list(*list);
}

std::string encode_list(const std::vector<std::string>& list) {
  return nlohmann::json(list).dump();
}

std::optional<std::vector<std::string>> decode_list(const std::optional<std::string>& json) {
  if (!json) return std::nullopt;
  auto parsed = nlohmann::json::parse(*json, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) return std::vector<std::string>{};
  std::vector<std::string> out;
  for (const auto& item : parsed) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::string encode_headers(const Headers& headers) { return nlohmann::json(headers).dump(); }

Headers decode_headers(const std::string& json) {
  auto parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  Headers out;
  if (!parsed.is_object()) return out;
  for (const auto& [k, v] : parsed.items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

Application read_application(const Stmt& s) {
  return Application{
      .id = s.text(0),
      .uid = s.opt_text(1),
      .name = s.text(2),
      .rate_limit = s.opt_int64(3),
      .metadata = s.text(4),
      .created_at = s.int64(5),
      .updated_at = s.int64(6),
  };
}

EventType read_event_type(const Stmt& s) {
  return EventType{
      .name = s.text(0),
      .description = s.text(1),
      .archived = s.int64(2) != 0,
      .schemas = s.text(3),
      .created_at = s.int64(4),
      .updated_at = s.int64(5),
  };
}

Endpoint read_endpoint(const Stmt& s) {
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
  ep.disabled = s.int64(11) != 0;
  ep.disabled_reason = s.opt_text(12);
  ep.fifo = s.int64(13) != 0;
  ep.headers = decode_headers(s.text(14));
  ep.retry_policy = s.opt_text(15);
  ep.connect_timeout_ms = s.opt_int64(16);
  ep.total_timeout_ms = s.opt_int64(17);
  ep.metadata = s.text(18);
  ep.created_at = s.int64(19);
  ep.updated_at = s.int64(20);
  ep.revision = s.int64(21);
  return ep;
}

Message read_message(const Stmt& s) {
  return Message{
      .id = s.text(0),
      .app_id = s.text(1),
      .event_type = s.text(2),
      .event_id = s.opt_text(3),
      .channels = decode_list(s.opt_text(4)),
      .payload = s.blob(5),
      .ordering_key = s.opt_text(6),
      .sequence = s.opt_int64(7),
      .created_at = s.int64(8),
      .tags = decode_list(s.opt_text(9)),
  };
}

Delivery read_delivery(const Stmt& s) {
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
}

Attempt read_attempt(const Stmt& s) {
  Attempt a;
  a.id = s.text(0);
  a.delivery_id = s.text(1);
  a.msg_id = s.text(2);
  a.endpoint_id = s.text(3);
  a.app_id = s.text(4);
  a.attempted_at = s.int64(5);
  a.response_status = s.opt_int64(6);
  a.response_headers = decode_headers(s.text(7));
  a.response_body = s.blob(8);
  a.duration_ms = s.int64(9);
  a.error = s.opt_text(10);
  a.success = s.int64(11) != 0;
  a.trigger = attempt_trigger_from(s.text(12)).value_or(AttemptTrigger::kScheduled);
  a.url = s.text(13);
  return a;
}

InboxEvent read_inbox(const Stmt& s) {
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
  e.payload = s.blob(17);
  return e;
}

IdempotencyRecord read_idempotency(const Stmt& s) {
  IdempotencyRecord r;
  r.scope = s.text(0);
  r.key = s.text(1);
  r.fingerprint = s.text(2);
  r.state = idempotency_state_from(s.text(3)).value_or(IdempotencyState::kUnknown);
  r.response_status = s.opt_int64(4);
  r.response_headers = decode_headers(s.text(5));
  r.response_body = s.blob(6);
  r.created_at = s.int64(7);
  r.updated_at = s.int64(8);
  r.expires_at = s.int64(9);
  return r;
}

AuditEntry read_audit(const Stmt& s) {
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
}

}  // namespace hookd::store::sqlite

namespace hookd::store::sqlite {
std::string delivery_state_json(const Delivery& d) {
  return nlohmann::json{{"status", std::string(to_string(d.status))},
                        {"endpoint_id", d.endpoint_id},
                        {"attempts", d.attempts}}
      .dump();
}

std::string endpoint_disabled_json(const Endpoint& ep) {
  nlohmann::json j = {{"disabled", ep.disabled}};
  j["disabledReason"] = ep.disabled_reason ? nlohmann::json(*ep.disabled_reason) : nullptr;
  return j.dump();
}

std::string resend_state_json(const Delivery& d) {
  return nlohmann::json{{"delivery", d.id},
                        {"endpoint_id", d.endpoint_id},
                        {"status", std::string(to_string(d.status))}}
      .dump();
}

std::string recover_state_json(int recovered) {
  return nlohmann::json{{"status", "pending"}, {"recovered", recovered}}.dump();
}

AuditEntry completed_audit(AuditEntry audit, const std::string& new_id,
                           std::optional<std::string> after) {
  if (audit.target_id.empty()) audit.target_id = new_id;
  if (!audit.after && after) audit.after = std::move(after);
  return audit;
}
}  // namespace hookd::store::sqlite
