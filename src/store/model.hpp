// The records the Store keeps: plain value structs shared by every backend and every caller
// (API handlers, dispatcher, inbound gateway, proxy, reconciler). Ids are time-sortable
// strings with a type prefix (`app_`, `ep_`, `msg_`, `atmpt_`, ...); times are Unix
// milliseconds; JSON documents (metadata, retry policy, audit before/after) are kept as
// serialized JSON text the caller owns. Thread-safety: plain value types.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hookd::store {

using Millis = std::int64_t;  // Unix time in milliseconds
using Headers = std::map<std::string, std::string>;

struct Application {
  std::string id;
  std::optional<std::string> uid;  // caller's own unique key, nullable
  std::string name;
  std::optional<std::int64_t> rate_limit;
  std::string metadata = "{}";  // JSON object text
  Millis created_at = 0;
  Millis updated_at = 0;
};

struct EventType {
  std::string name;  // primary key
  std::string description;
  bool archived = false;
  std::string schemas = "{}";  // JSON text
  Millis created_at = 0;
  Millis updated_at = 0;
};

// A signing secret. During rotation the previous one keeps signing until it expires.
struct EndpointSecrets {
  std::string current;
  std::optional<std::string> previous;
  std::optional<Millis> previous_expires_at;
};

struct Endpoint {
  std::string id;
  std::string app_id;
  std::optional<std::string> uid;  // unique per application
  std::string url;
  std::string description;
  std::optional<std::vector<std::string>> filter_types;  // nullopt/empty: every event type
  std::optional<std::vector<std::string>> channels;      // nullopt/empty: every message
  EndpointSecrets secrets;
  std::optional<std::int64_t> rate_limit;  // messages per second
  bool disabled = false;
  std::optional<std::string> disabled_reason;
  bool fifo = false;  // deliver messages sharing an ordering key strictly in sequence
  Headers headers;
  std::optional<std::string> retry_policy;  // JSON text; nullopt: server default
  std::optional<std::int64_t> connect_timeout_ms;
  std::optional<std::int64_t> total_timeout_ms;
  // Which Standard Webhooks header names deliveries carry: "both" (webhook-* and svix-*, the
  // same values), "webhook" or "svix". The API checks the value; the dispatcher reads it.
  std::string header_naming = "both";
  std::string metadata = "{}";
  Millis created_at = 0;
  Millis updated_at = 0;
  // Grows by one with every change of the row (update, rotation, enable/disable), so a
  // cached copy knows it is stale (the dispatcher compares it with claimed deliveries').
  std::int64_t revision = 1;
};

struct Message {
  std::string id;
  std::string app_id;
  std::string event_type;
  std::optional<std::string> event_id;  // unique per application when present
  std::optional<std::vector<std::string>> channels;
  std::string payload;  // raw bytes, sent byte-for-byte
  std::optional<std::string> ordering_key;
  std::optional<std::int64_t> sequence;  // per (app, ordering_key), assigned at publish
  Millis created_at = 0;
  // Svix `tags`: free-form labels to filter message lists by (not used for routing).
  std::optional<std::vector<std::string>> tags;
};

enum class DeliveryStatus { kPending, kDelivering, kDelivered, kDead, kDiscarded };

// One row of the queue: one message to one endpoint.
struct Delivery {
  std::string id;
  std::string msg_id;
  std::string endpoint_id;
  std::string app_id;
  DeliveryStatus status = DeliveryStatus::kPending;
  std::int64_t attempts = 0;
  Millis next_attempt_at = 0;
  std::optional<std::string> lease_owner;
  std::optional<Millis> lease_until;
  std::optional<Millis> first_attempt_at;
  std::optional<Millis> last_attempt_at;
  std::optional<std::string> last_error;
  std::optional<std::int64_t> last_response_status;
  std::optional<std::string> ordering_key;
  std::optional<std::int64_t> sequence;
  Millis created_at = 0;
  Millis updated_at = 0;
  // Set by claims only: the endpoint's revision as the claim saw it, i.e. at least the one
  // every change acknowledged before this delivery's message was published had made.
  std::optional<std::int64_t> endpoint_revision;
};

// One item of an endpoint's outbound feed (FeedStore): a message the endpoint was matched
// to at publish (or a dead delivery replayed onto it), with that delivery's id and status.
struct FeedItem {
  Message message;
  std::string delivery_id;
  DeliveryStatus status = DeliveryStatus::kPending;
};

enum class AttemptTrigger { kScheduled, kManual };

struct Attempt {
  std::string id;
  std::string delivery_id;
  std::string msg_id;
  std::string endpoint_id;
  std::string app_id;
  Millis attempted_at = 0;
  std::optional<std::int64_t> response_status;  // nullopt: no HTTP response
  Headers response_headers;
  std::string response_body;  // first N KiB only (the caller truncates)
  std::int64_t duration_ms = 0;
  std::optional<std::string> error;  // transport error text
  bool success = false;
  AttemptTrigger trigger = AttemptTrigger::kScheduled;
  std::string url;
};

// Inbound inbox. Open statuses take part in per-entity ordering; the rest are final.
enum class InboxStatus {
  kReceived,    // open: stored, not yet forwarded
  kProcessing,  // open: leased by a forwarder
  kRetry,       // open: forwarding failed, next_attempt_at set
  kParked,      // open: waits for depends_on, re-checked at next_attempt_at
  kProcessed,   // final: the app accepted it
  kStale,       // final: sequence not newer than the last processed one
  kSuperseded,  // final: entity already in a terminal state
  kDead,        // final: gave up; reconciliation or a person takes over
  kDuplicate,   // final: business key already forwarded ("duplicate-business-key")
};

struct InboxEvent {
  std::string id;
  std::string source;
  std::string event_id;  // unique per source
  std::optional<std::string> business_key;
  std::optional<std::string> entity_key;
  std::optional<std::int64_t> sequence;
  std::optional<Millis> event_time;
  Millis received_at = 0;
  std::optional<Millis> processed_at;
  InboxStatus status = InboxStatus::kReceived;
  std::int64_t attempts = 0;
  Millis next_attempt_at = 0;
  std::optional<std::string> lease_owner;
  std::optional<Millis> lease_until;
  std::vector<std::string> depends_on;
  std::optional<std::string> last_error;
  Headers headers;
  std::string payload;
  // Written only: the note of the history row an insert adds ("received" for a webhook;
  // the reconciler's "reconciled: <difference id>").
  std::string history_note = "received";
};

struct InboxHistoryEntry {
  std::string inbox_id;
  Millis at = 0;
  std::optional<InboxStatus> from;
  InboxStatus to = InboxStatus::kReceived;
  std::string note;
};

// Latest known state of one entity of a source (for stale/superseded guards).
struct InboxEntity {
  std::string source;
  std::string entity_key;
  std::optional<std::int64_t> last_sequence;
  std::optional<std::string> state;
  bool terminal = false;
  Millis updated_at = 0;
};

enum class IdempotencyState { kInFlight, kCompleted, kUnknown };

struct IdempotencyRecord {
  std::string scope;  // e.g. "<tenant>|<route>"
  std::string key;
  std::string fingerprint;
  IdempotencyState state = IdempotencyState::kInFlight;
  std::optional<std::int64_t> response_status;
  Headers response_headers;
  std::string response_body;
  Millis created_at = 0;
  Millis updated_at = 0;
  Millis expires_at = 0;
};

// ---- the idempotency gateway's keys ([[proxy]], docs/proxy.md) ----
// A released key has no row: it is deleted ("not executed, the client may retry").
enum class ProxyKeyState {
  kClaimed,        // the request is (or may be) on its way upstream; owner + lease set
  kCompleted,      // the upstream's answer is stored and replayed
  kNotReplayable,  // answered, but the body was too big to keep: status/size/SHA-256 only
  kUnknown,        // the request may have been executed; never re-sent until resolved
};

using HeaderPairs = std::vector<std::pair<std::string, std::string>>;  // wire order kept

struct ProxyKey {
  std::string id;  // "idk_..."
  std::string proxy;
  std::string tenant;  // hex SHA-256 of the tenant header's value ("" = the one tenant)
  std::string key;     // the client's Idempotency-Key
  std::string fingerprint;
  ProxyKeyState state = ProxyKeyState::kClaimed;
  std::string owner;       // who claimed it ("<node>/proxy"); kept when it becomes unknown
  Millis lease_until = 0;  // claimed only: after this the owner is presumed dead
  std::optional<std::int64_t> status;  // the answer (completed / not_replayable)
  HeaderPairs headers;                 // hop-by-hop removed by the gateway
  std::string body;                    // completed only
  std::int64_t body_size = 0;
  std::string body_sha256;  // hex
  Millis created_at = 0;
  Millis updated_at = 0;    // also: when it became unknown
  Millis expires_at = 0;    // completed / not_replayable only; 0 = never (claimed, unknown)
  std::string resolved_by;  // who resolved an unknown key (actor), if anyone
  std::string reason;       // why (a person's reason, or "status_url: 200")
};

std::string_view to_string(ProxyKeyState s);
std::optional<ProxyKeyState> parse_proxy_key_state(std::string_view text);

struct AuditEntry {
  std::string id;  // assigned by the store
  Millis at = 0;   // assigned by the store
  std::string actor;
  std::string action;  // e.g. "dlq.replay", "endpoint.disable"
  std::string target_type;
  std::string target_id;
  std::string reason;
  std::optional<std::string> before;  // JSON text
  std::optional<std::string> after;   // JSON text
};

// Svix endpoint stats: an endpoint's deliveries by state (success = delivered, pending =
// waiting for an attempt, sending = an attempt in flight, fail = dead, canceled = a dead
// letter an operator discarded).
struct EndpointStats {
  std::int64_t success = 0;
  std::int64_t pending = 0;
  std::int64_t sending = 0;
  std::int64_t fail = 0;
  std::int64_t canceled = 0;
};

// Stats from (delivery status text, count) rows as the backends group them.
EndpointStats endpoint_stats_of(const std::vector<std::pair<std::string, std::int64_t>>& counts);

// A Svix background task (`qtask_`): the record of an endpoint recover or replay-missing,
// readable after the call. hookd runs both in the call's own transaction, so a task is
// `finished` (or `failed`) when it is written; `data` is a JSON object (e.g. {"recovered": 3}).
struct BackgroundTask {
  std::string id;
  std::string task;    // Svix BackgroundTaskType: "endpoint.recover", "endpoint.replay"
  std::string status;  // Svix BackgroundTaskStatus: "running", "finished", "failed"
  std::string data = "{}";
  std::string app_id;
  std::string endpoint_id;
  Millis created_at = 0;
  Millis updated_at = 0;
};

std::string_view to_string(DeliveryStatus s);
std::string_view to_string(AttemptTrigger t);
std::string_view to_string(InboxStatus s);
std::string_view to_string(IdempotencyState s);
std::optional<DeliveryStatus> delivery_status_from(std::string_view s);
std::optional<AttemptTrigger> attempt_trigger_from(std::string_view s);
std::optional<InboxStatus> inbox_status_from(std::string_view s);
std::optional<IdempotencyState> idempotency_state_from(std::string_view s);

// What a delivery keeps as `last_error` after an attempt: the transport error, or for a
// failed HTTP answer "HTTP <status>: <start of the body>" (at most kLastErrorBodyBytes of
// it, as valid UTF-8 on one line); nullopt after a success.
inline constexpr std::size_t kLastErrorBodyBytes = 200;
std::optional<std::string> last_error_of(const Attempt& attempt);

}  // namespace hookd::store
