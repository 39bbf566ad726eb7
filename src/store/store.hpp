// The Store: hookd's persistence, split into one interface per aggregate and joined in
// `Store`. Every backend (SQLite now, PostgreSQL later) implements it and passes the same
// contract suite (tests/store). Each method is one transaction: it either happens fully
// or not at all. Expected failures are Results: kNotFound, kConflict (unique key taken, a
// lost lease, a state that forbids the change), kUnavailable (database locked, I/O error,
// disk full: the caller may retry / answer 503), kInvalidArgument.
// A method that takes an AuditEntry appends it in the same transaction as its change, so a
// change is never kept without its audit row (A30).
// Thread-safety: every method may be called concurrently from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hookd/result.hpp"
#include "store/attempted.hpp"
#include "store/retention.hpp"
#include "store/model.hpp"
#include "store/paging.hpp"
#include "store/reconcile.hpp"

namespace hookd::store {

// ---- applications and event types ----
class ApplicationStore {
 public:
  virtual ~ApplicationStore() = default;
  // `app.id`, created_at, updated_at are assigned. A taken uid -> kConflict. The audit
  // entry's empty target_id becomes the new id.
  virtual Result<Application> create_application(Application app,
                                                 std::optional<AuditEntry> audit = {}) = 0;
  virtual Result<Application> get_application(const std::string& id_or_uid) = 0;
  virtual Result<Page<Application>> list_applications(const PageRequest& page) = 0;
  // Replaces name, uid, rate_limit, metadata of `app.id`; bumps updated_at.
  virtual Result<Application> update_application(const Application& app,
                                                 std::optional<AuditEntry> audit = {}) = 0;
  // Deletes the application with its endpoints, messages, deliveries and attempts.
  virtual Status delete_application(const std::string& id,
                                    std::optional<AuditEntry> audit = {}) = 0;

  // A taken name -> kConflict.
  virtual Result<EventType> create_event_type(EventType type,
                                              std::optional<AuditEntry> audit = {}) = 0;
  virtual Result<EventType> get_event_type(const std::string& name) = 0;
  virtual Result<Page<EventType>> list_event_types(const PageRequest& page,
                                                   bool include_archived) = 0;
  virtual Result<EventType> update_event_type(const EventType& type,
                                              std::optional<AuditEntry> audit = {}) = 0;
  virtual Status delete_event_type(const std::string& name,
                                   std::optional<AuditEntry> audit = {}) = 0;
};

// ---- endpoints ----
// What set_endpoint_disabled did: `changed` is false when the endpoint already was in the
// asked state (nothing written, no audit entry).
struct EndpointTransition {
  Endpoint endpoint;  // as it is after the call
  bool changed = false;
};

class EndpointStore {
 public:
  virtual ~EndpointStore() = default;
  // `ep.id` and times are assigned; `ep.app_id` must exist (else kNotFound). The audit
  // entry's empty target_id becomes the new id.
  virtual Result<Endpoint> create_endpoint(Endpoint ep, std::optional<AuditEntry> audit = {}) = 0;
  // By id or by uid within the application.
  virtual Result<Endpoint> get_endpoint(const std::string& app_id,
                                        const std::string& id_or_uid) = 0;
  virtual Result<Page<Endpoint>> list_endpoints(const std::string& app_id,
                                                const PageRequest& page) = 0;
  // Replaces every mutable field of `ep.id` (app_id and created_at are kept).
  virtual Result<Endpoint> update_endpoint(const Endpoint& ep,
                                           std::optional<AuditEntry> audit = {}) = 0;
  virtual Status delete_endpoint(const std::string& app_id, const std::string& id,
                                 std::optional<AuditEntry> audit = {}) = 0;
  // Rotation: `new_secret` becomes current; the old one keeps signing until
  // now + previous_valid_ms. The audit entry must not hold either secret.
  virtual Result<Endpoint> rotate_endpoint_secret(const std::string& app_id, const std::string& id,
                                                  const std::string& new_secret,
                                                  Millis previous_valid_ms,
                                                  std::optional<AuditEntry> audit = {}) = 0;
  // Enable/disable as a transition: only an endpoint not yet in the asked state changes
  // (UPDATE ... WHERE disabled <> asked), and only then is the audit entry appended, in the
  // same transaction; its before/after become the row's {disabled, disabledReason} as they
  // were and became. Already in that state: nothing is written (the reason stays), `changed`
  // is false. Of concurrent calls asking the same state, exactly one changes the row.
  virtual Result<EndpointTransition> set_endpoint_disabled(const std::string& app_id,
                                                           const std::string& id, bool disabled,
                                                           std::optional<std::string> reason,
                                                           std::optional<AuditEntry> audit) = 0;
};

// ---- messages (publish = message + its deliveries, one transaction) ----
struct IdempotencyBegin {
  enum class Outcome {
    kStarted,   // new (or expired) key: the caller owns it and must finish/mark_unknown
    kReplay,    // completed with the same fingerprint: `record` holds the response
    kInFlight,  // first request still running -> 409
    kMismatch,  // different fingerprint -> 422
    kUnknown,   // outcome unknown -> 409 outcome-unknown
  };
  Outcome outcome = Outcome::kStarted;
  IdempotencyRecord record;
};

// How a request with `fingerprint` meets an existing, unexpired key.
IdempotencyBegin::Outcome idempotency_outcome(const IdempotencyRecord& record,
                                              const std::string& fingerprint);

// The response an Idempotency-Key keeps for replays.
struct StoredResponse {
  std::int64_t status = 0;
  Headers headers;
  std::string body;
};

struct PublishOutcome;

// An Idempotency-Key folded into a publish: the batch's transaction claims the key, and for
// a new key stores the rendered response with the message (one commit for both).
struct PublishKey {
  std::string scope;
  std::string key;
  std::string fingerprint;
  Millis ttl_ms = 0;
  // Renders the response kept for replays from the item's publish outcome (kCreated,
  // kDuplicate or kRejected). Called inside the transaction: must be quick and pure.
  std::function<StoredResponse(const PublishOutcome&)> render;
};

struct NewMessage {
  std::string app_id;
  std::string event_type;
  std::optional<std::string> event_id;
  std::optional<std::vector<std::string>> channels;
  std::string payload;
  std::optional<std::string> ordering_key;
  std::optional<PublishKey> key;  // publish_batch only
  std::optional<std::vector<std::string>> tags;
  // Svix send-example: only this endpoint may get a delivery (if it is enabled and its
  // filters match, as for any publish); nullopt = every matching endpoint.
  std::optional<std::string> only_endpoint;
};

struct PublishOutcome {
  // kKeySeen: the item's Idempotency-Key was known (replay, in flight, mismatch, unknown);
  // nothing was published, `key` says how.
  enum class Kind { kCreated, kDuplicate, kRejected, kKeySeen };
  Kind kind = Kind::kCreated;
  Message message;             // the new message, or the existing one for kDuplicate
  int deliveries_created = 0;  // one per matching, enabled endpoint
  std::optional<Error> error;  // kRejected only (e.g. unknown application)
  // Keyed items only: kStarted with the stored response for a new key, else the key's state.
  std::optional<IdempotencyBegin> key;
};

struct MessageFilter {
  std::optional<std::vector<std::string>> event_types;
  std::optional<std::string> channel;
  std::optional<std::string> tag;  // messages carrying this tag
  std::optional<Millis> since;     // created_at >= since
  std::optional<Millis> before;    // created_at < before
};

class MessageStore {
 public:
  virtual ~MessageStore() = default;
  // Inserts the message, assigns its ordering sequence, creates one pending delivery per
  // matching endpoint. A duplicate event id returns kDuplicate with the existing message.
  virtual Result<PublishOutcome> publish(const NewMessage& msg) = 0;
  // Many publishes in ONE transaction (group commit). Items fail independently
  // (kRejected/kDuplicate); a storage failure fails the whole batch and nothing is kept.
  virtual Result<std::vector<PublishOutcome>> publish_batch(
      const std::vector<NewMessage>& msgs) = 0;
  virtual Result<Message> get_message(const std::string& app_id,
                                      const std::string& id_or_event_id) = 0;
  virtual Result<Page<Message>> list_messages(const std::string& app_id,
                                              const MessageFilter& filter,
                                              const PageRequest& page) = 0;
};

// ---- deliveries: the queue ----
struct ClaimRequest {
  std::string lease_owner;  // e.g. node id + worker
  Millis lease_ms = 30'000;
  int limit = 100;
};

// What the dispatcher reports after one HTTP attempt.
struct AttemptReport {
  std::string delivery_id;
  std::string lease_owner;  // must still hold the lease, else kConflict
  Attempt attempt;          // ids other than `id` copied from the delivery by the store
  enum class Next { kRetry, kDelivered, kDead } next = Next::kRetry;
  Millis next_attempt_at = 0;  // kRetry only
};

// The delivery's status after a report (both backends write it).
DeliveryStatus status_after(AttemptReport::Next next);

// A leased delivery handed back without an attempt (e.g. its endpoint's gate said "wait").
struct Deferral {
  std::string delivery_id;
  Millis next_attempt_at = 0;
};

// One round trip of a dispatcher (see DeliveryStore::dispatch_round): what it finished and
// hands back, and how much new work it wants.
struct DispatchRound {
  std::vector<AttemptReport> reports;
  std::vector<Deferral> deferrals;
  std::string lease_owner;  // of the deferrals and the claim
  Millis lease_ms = 30'000;
  int claim_limit = 0;  // 0 = claim nothing
  // Endpoints known to be healthy again (a circuit closed): their pending deliveries that
  // wait for a later retry become due now (attempt counts and deadlines unchanged).
  std::vector<std::string> expedite_endpoints;
};

struct DispatchRoundResult {
  std::vector<Result<Delivery>> recorded;  // one per report, as record_attempts
  int deferred = 0;                        // as defer_deliveries
  int expedited = 0;                       // deliveries made due by expedite_endpoints
  std::vector<Delivery> claimed;           // as claim_due
  // messages[i] is claimed[i]'s message (read in the same transaction); kNotFound if gone.
  std::vector<Result<Message>> messages;
};

// What one committer hands the store at once (see Store::write_batch): queued publishes and,
// optionally, the dispatcher's round, so that both share one commit.
struct WriteBatch {
  std::vector<NewMessage> publishes;
  std::optional<DispatchRound> round;
};

// Each part's own result: a failure of one part does not fail the other, unless the commit
// itself failed (then both carry that error).
struct WriteBatchResult {
  Result<std::vector<PublishOutcome>> published = std::vector<PublishOutcome>{};
  std::optional<Result<DispatchRoundResult>> round;  // set iff the batch had a round
};

struct DeadLetterFilter {
  std::optional<std::string> app_id;
  std::optional<std::string> endpoint_id;
  std::optional<Millis> since;  // dead since (updated_at >= since)
  std::optional<Millis> until;  // updated_at < until
};

class DeliveryStore {
 public:
  virtual ~DeliveryStore() = default;
  // Leases up to `limit` due deliveries: pending with next_attempt_at <= now, or
  // delivering with an expired lease; endpoint enabled; for a FIFO endpoint only the
  // lowest-sequence open delivery of each (endpoint, ordering key). Oldest due first. A
  // claimed delivery's next_attempt_at becomes its lease expiry (when it is due again if
  // its owner never reports).
  virtual Result<std::vector<Delivery>> claim_due(const ClaimRequest& req) = 0;
  // One transaction: the attempt row + the delivery's new state. Returns the delivery as
  // updated. kConflict if `lease_owner` no longer holds the lease.
  virtual Result<Delivery> record_attempt(const AttemptReport& report) = 0;
  // Many reports in ONE transaction (group commit for the dispatcher). Items fail
  // independently (a lost lease is that item's kConflict); a storage failure fails the whole
  // batch and nothing is kept.
  virtual Result<std::vector<Result<Delivery>>> record_attempts(
      const std::vector<AttemptReport>& reports) = 0;
  // Graceful stop: every delivery leased by `lease_owner` goes back to pending, due now.
  virtual Result<int> release_leases(const std::string& lease_owner) = 0;
  // Hands leased deliveries back without counting an attempt: pending, due at
  // next_attempt_at, lease cleared. Items `lease_owner` no longer holds are skipped. One
  // transaction; returns how many changed.
  virtual Result<int> defer_deliveries(const std::vector<Deferral>& items,
                                       const std::string& lease_owner) = 0;
  // Pending deliveries of the endpoint due later than now become due now (the endpoint is
  // known to be up again). Leased, delivered and dead ones are untouched. Returns how many.
  // The default does nothing (returns 0): the deliveries then wait for their own retry time.
  virtual Result<int> expedite_endpoint(const std::string& endpoint_id);
  virtual Result<Delivery> get_delivery(const std::string& id) = 0;
  virtual Result<std::vector<Delivery>> list_deliveries_for_message(const std::string& msg_id) = 0;
  virtual Result<std::int64_t> count_deliveries(DeliveryStatus status) = 0;
  // created_at of the oldest delivery still waiting (pending or delivering); nullopt: none
  // ("events waiting too long", SPEC §7: hookd_outbound_oldest_waiting_seconds).
  virtual Result<std::optional<Millis>> oldest_waiting_delivery() = 0;

  // Dead-letter queue.
  virtual Result<Page<Delivery>> list_dead(const DeadLetterFilter& filter,
                                           const PageRequest& page) = 0;
  // Back to pending, attempts reset, due now; optionally to another endpoint of the same
  // application. Each id must be dead (else kConflict, nothing changed). Audited in the
  // same transaction.
  virtual Result<int> replay_dead(const std::vector<std::string>& delivery_ids,
                                  std::optional<std::string> to_endpoint_id,
                                  const AuditEntry& audit) = 0;
  virtual Result<int> discard_dead(const std::vector<std::string>& delivery_ids,
                                   const AuditEntry& audit) = 0;
  // Svix resend: a new pending delivery of the message to the endpoint. An audit entry
  // without `after` gets {delivery, endpoint_id, status} of the new delivery.
  virtual Result<Delivery> resend(const std::string& msg_id, const std::string& endpoint_id,
                                  std::optional<AuditEntry> audit = {}) = 0;
  // Svix recover: every dead delivery of the endpoint created in [since, until) (no upper
  // bound without `until`) goes back to pending (attempts reset). Returns how many. An audit
  // entry without `after` gets {status: "pending", recovered: <how many>}.
  virtual Result<int> recover(const std::string& endpoint_id, Millis since,
                              std::optional<Millis> until = std::nullopt,
                              std::optional<AuditEntry> audit = {}) = 0;
  // Svix replay-missing: a new pending delivery to the endpoint (in its feed) of every message
  // of its application created in [since, until) that the endpoint's filters route to it and
  // that it has no delivery of yet. Returns how many. An audit entry without `after` gets
  // {status: "pending", replayed: <how many>}. Unknown endpoint: kNotFound.
  virtual Result<int> replay_missing(const std::string& endpoint_id, Millis since,
                                     std::optional<Millis> until = std::nullopt,
                                     std::optional<AuditEntry> audit = {}) = 0;
  // Svix endpoint stats: the endpoint's deliveries created in [since, until) by state.
  virtual Result<EndpointStats> endpoint_stats(const std::string& endpoint_id,
                                               std::optional<Millis> since,
                                               std::optional<Millis> until) = 0;
};

// ---- background tasks (Svix qtask_) ----
struct TaskFilter {
  std::optional<std::string> status;
  std::optional<std::string> task;
};

class TaskStore {
 public:
  virtual ~TaskStore() = default;
  // Stores `task` (its id, times and fields as given; kConflict if the id exists).
  virtual Status put_task(const BackgroundTask& task) = 0;
  virtual Result<BackgroundTask> get_task(const std::string& id) = 0;  // kNotFound
  virtual Result<Page<BackgroundTask>> list_tasks(const TaskFilter& filter,
                                                  const PageRequest& page) = 0;
};

// ---- attempts ----
// The conditions of an attempt list (Svix's listByMsg / listByEndpoint filters); each one set
// narrows the list, in the store's query (not after paging).
struct AttemptFilter {
  std::optional<std::string> id{};  // one attempt (attempt get)
  std::optional<std::string> msg_id{};
  std::optional<std::string> endpoint_id{};
  std::optional<int> status{};             // Svix MessageStatus: 0 success, 1 pending, 2 fail,
                                           // 3 sending, 4 canceled (an attempt is only ever 0 or 2)
  std::optional<int> status_code_class{};  // 0: no HTTP response; 100..500: that hundred
  std::optional<std::vector<std::string>> event_types{};  // its message's event type is one
  std::optional<std::string> channel{};                   // its message carries this channel
  std::optional<std::string> tag{};                       // its message carries this tag
  std::optional<Millis> since{};                          // attempted_at >= since
  std::optional<Millis> before{};                         // attempted_at < before
};

class AttemptStore {
 public:
  virtual ~AttemptStore() = default;
  virtual Result<Page<Attempt>> list_attempts(const AttemptFilter& filter,
                                              const PageRequest& page) = 0;
  Result<Page<Attempt>> list_attempts_by_message(const std::string& msg_id,
                                                 const PageRequest& page) {
    return list_attempts(AttemptFilter{.msg_id = msg_id}, page);
  }
  Result<Page<Attempt>> list_attempts_by_endpoint(const std::string& endpoint_id,
                                                  const PageRequest& page) {
    return list_attempts(AttemptFilter{.endpoint_id = endpoint_id}, page);
  }
};

// ---- the outbound feed (docs/reconciliation.md) ----
// FeedItem is in model.hpp.
struct FeedPage {
  std::vector<FeedItem> data;
  std::string iterator;  // pass back to read on; the request's own when nothing was new
  bool done = true;      // false: more can be read now (a full page, or rows held back)
};

class FeedStore {
 public:
  virtual ~FeedStore() = default;
  // The endpoint's feed after `iterator` ("" = from the start), oldest first in COMMIT order:
  // a row that commits after a page was read never lands behind that page's iterator (on
  // PostgreSQL a page holds only rows whose transaction and every older one have finished).
  // Feed rows: the deliveries a publish creates, and a dead delivery replayed onto another
  // endpoint (a new position there). A resend adds none (the message is in the feed
  // already, at its publish position). `limit` is clamped to [1, 250]. kNotFound: no such
  // endpoint; kInvalidArgument: an iterator this backend did not hand out.
  virtual Result<FeedPage> feed_page(const std::string& endpoint_id, const std::string& iterator,
                                     int limit) = 0;
  // Stores the SHA-256 (hex) of the endpoint's feed token, with the audit entry in the same
  // transaction. `replace` false: only when it has none yet (else kConflict, nothing
  // written). kNotFound: no such endpoint in the application.
  virtual Status set_feed_token(const std::string& app_id, const std::string& endpoint_id,
                                const std::string& token_sha256, bool replace,
                                std::optional<AuditEntry> audit) = 0;
  // The id of the endpoint whose feed token hashes to `token_sha256`; kNotFound when none.
  virtual Result<std::string> feed_token_endpoint(const std::string& token_sha256) = 0;
};

// ---- inbound inbox ----
struct InboxInsertOutcome {
  bool inserted = false;  // false: duplicate (source, event_id)
  std::string id;         // the new row's id, or the existing row's id
};

struct InboxClaimRequest {
  std::string lease_owner;
  Millis lease_ms = 30'000;
  int limit = 100;
  std::optional<std::string> source;
};

struct InboxStatusUpdate {
  std::string id;
  std::string lease_owner;  // must hold the lease, else kConflict
  InboxStatus to = InboxStatus::kProcessed;
  std::string note;                       // goes to the history row
  std::optional<Millis> next_attempt_at;  // for kRetry / kParked
  std::optional<std::string> error;
  bool count_attempt = false;         // increments attempts
  std::optional<InboxEntity> entity;  // upserted in the same transaction
  // Appended to the audit log in the same transaction when the change is made (e.g. the
  // `inbox.dead` entry), so a crash cannot keep the status without its audit row.
  std::optional<AuditEntry> audit;
  // Recorded in the same transaction unless its (source, kind, subject) is recorded already
  // (the forwarder's parked_timeout difference, A21): found once, however often re-parked.
  std::optional<Difference> difference;
};

// One round trip of a forwarder (see InboxStore::inbox_round): the status changes it
// finished, and how much new work it wants.
struct InboxRound {
  std::vector<InboxStatusUpdate> updates;
  std::string lease_owner;  // of the claim
  Millis lease_ms = 30'000;
  int claim_limit = 0;  // 0 = claim nothing
  std::optional<std::string> source;
};

struct InboxRoundResult {
  std::vector<Result<InboxEvent>> updated;  // one per update, as inbox_update_status_batch
  std::vector<InboxEvent> claimed;          // as inbox_claim
};

// What the inbound group committer hands the store at once (see Store::inbox_write_batch):
// the events the receiver queued and, optionally, the forwarder's round, sharing one commit.
struct InboxWriteBatch {
  std::vector<InboxEvent> inserts;
  std::optional<InboxRound> round;
};

// Each part's own result, as WriteBatchResult: one part failing does not fail the other,
// unless the commit itself failed (then both carry that error).
struct InboxWriteBatchResult {
  Result<std::vector<InboxInsertOutcome>> inserted = std::vector<InboxInsertOutcome>{};
  std::optional<Result<InboxRoundResult>> round;  // set iff the batch had a round
};

struct InboxFilter {
  std::optional<std::string> source;
  std::optional<InboxStatus> status;
  std::optional<std::string> entity_key;
};

class InboxStore {
 public:
  virtual ~InboxStore() = default;
  // INSERT ... ON CONFLICT (source, event_id) DO NOTHING; id/received_at assigned.
  virtual Result<InboxInsertOutcome> inbox_insert(InboxEvent ev) = 0;
  virtual Result<std::vector<InboxInsertOutcome>> inbox_insert_batch(
      std::vector<InboxEvent> evs) = 0;
  virtual Result<InboxEvent> inbox_get(const std::string& id) = 0;
  virtual Result<InboxEvent> inbox_find(const std::string& source, const std::string& event_id) = 0;
  virtual Result<Page<InboxEvent>> inbox_list(const InboxFilter& filter,
                                              const PageRequest& page) = 0;
  // Leases due open events; per (source, entity key) only the first open one in order
  // (sequence, then received time, then id) is claimable. Rows without an entity key are
  // independent.
  virtual Result<std::vector<InboxEvent>> inbox_claim(const InboxClaimRequest& req) = 0;
  // Status change + history row (+ entity state) in one transaction; releases the lease.
  // Moving an event to a settled status (processed, stale, superseded, duplicate) also makes
  // every parked event of the same source whose depends_on lists its event id due now (same
  // transaction), so a dependent is released right after its dependency.
  virtual Result<InboxEvent> inbox_update_status(const InboxStatusUpdate& update) = 0;
  // Many updates in ONE transaction (group commit for the forwarder), each as above. Items
  // fail independently (a lost lease is that item's kConflict); a storage failure fails the
  // whole batch and nothing is kept.
  virtual Result<std::vector<Result<InboxEvent>>> inbox_update_status_batch(
      const std::vector<InboxStatusUpdate>& updates) = 0;
  // The forwarder's round trip: inbox_update_status_batch(updates), then inbox_claim(
  // claim_limit), in ONE transaction (one commit for the lot). Items fail independently as in
  // the batch; a storage failure fails the round and nothing is kept. The commit need not
  // wait for its own fsync: losing a round to a power failure only repeats forwards (at
  // least once), and it is made durable by the next durable commit (the log is sequential).
  virtual Result<InboxRoundResult> inbox_round(const InboxRound& round) = 0;
  // Operator replay of a dead event: back to `received` (attempts reset, last error cleared,
  // due now), with a history row (note: "replayed: <audit reason>") and the audit entry, in
  // one transaction. kNotFound when absent, kConflict when the event is not dead.
  virtual Result<InboxEvent> inbox_replay_dead(const std::string& id, const AuditEntry& audit) = 0;
  // True when an event of `source` with this business key was processed (forwarded and
  // accepted by the app) — the business-key guard.
  virtual Result<bool> inbox_business_key_processed(const std::string& source,
                                                    const std::string& business_key) = 0;
  // Graceful stop / restart of a forwarder: every event leased by `lease_owner` goes back to
  // its previous open state's queue (status retry, due now, lease cleared; no history row).
  // Returns how many.
  virtual Result<int> inbox_release_leases(const std::string& lease_owner) = 0;
  // received_at of the oldest event not yet settled (received, processing, retry, parked);
  // nullopt: none (hookd_inbound_oldest_waiting_seconds).
  virtual Result<std::optional<Millis>> inbox_oldest_waiting() = 0;
  virtual Result<std::vector<InboxHistoryEntry>> inbox_history(const std::string& id) = 0;
  virtual Result<InboxEntity> inbox_entity(const std::string& source,
                                           const std::string& entity_key) = 0;
};

// ---- idempotency keys (IdempotencyBegin is declared with the messages) ----
class IdempotencyStore {
 public:
  virtual ~IdempotencyStore() = default;
  virtual Result<IdempotencyBegin> idem_begin(const std::string& scope, const std::string& key,
                                              const std::string& fingerprint, Millis ttl_ms) = 0;
  // in_flight -> completed with the response (kConflict from any other state).
  virtual Status idem_finish(const std::string& scope, const std::string& key, std::int64_t status,
                             const Headers& headers, const std::string& body) = 0;
  virtual Status idem_mark_unknown(const std::string& scope, const std::string& key) = 0;
  // Forget a key (upstream provably not called, or an operator resolved it).
  virtual Status idem_release(const std::string& scope, const std::string& key) = 0;
  virtual Result<IdempotencyRecord> idem_get(const std::string& scope, const std::string& key) = 0;
};

// ---- the idempotency gateway's keys (docs/proxy.md) ----
// Claim one key before its request goes upstream.
struct ProxyClaim {
  std::string proxy;
  std::string tenant;
  std::string key;
  std::string fingerprint;
  std::string owner;
  Millis lease_ms = 0;  // lease_until = now + lease_ms
};

// `claimed` true: a new row (or one whose completed/not_replayable record had expired) is now
// `claimed` by the caller. False: `key` is the existing row, as it is after the claim's
// transaction; a `claimed` row whose lease had run out was turned `unknown` in it (its owner
// died after the claim, maybe after sending).
struct ProxyClaimResult {
  bool claimed = false;
  ProxyKey key;
};

// What became of a claimed key's request. Applies only while the row is `claimed` by `owner`,
// or `unknown` with that same owner (its lease ran out while the answer was on its way: the
// answer is the truth). Any other state, or another owner -> kConflict, nothing changed.
struct ProxyKeyOutcome {
  std::string id;
  std::string owner;
  enum class To { kCompleted, kNotReplayable, kUnknown, kReleased } to = To::kCompleted;
  std::int64_t status = 0;  // kCompleted / kNotReplayable
  HeaderPairs headers;      // kCompleted / kNotReplayable
  std::string body;         // kCompleted only
  std::int64_t body_size = 0;
  std::string body_sha256;
  Millis ttl_ms = 0;  // expires_at = now + ttl_ms (kCompleted / kNotReplayable)
};

// What one proxy committer hands the store at once: outcomes first (a released key can be
// claimed again in the same batch), then claims; ONE durable transaction.
struct ProxyWriteBatch {
  std::vector<ProxyKeyOutcome> outcomes;
  std::vector<ProxyClaim> claims;
};

struct ProxyWriteBatchResult {
  // outcomes[i]: the row after the change (kReleased: the row as it was before the delete).
  std::vector<Result<ProxyKey>> outcomes;
  std::vector<Result<ProxyClaimResult>> claims;
};

struct ProxyKeyFilter {
  std::optional<std::string> proxy;
  std::optional<ProxyKeyState> state;
};

// A person's (or the status_url resolver's) decision on an unknown key.
struct ProxyResolution {
  enum class Outcome { kCompleted, kNotExecuted } outcome = Outcome::kCompleted;
  std::int64_t status = 0;  // kCompleted: the operation's answer
  HeaderPairs headers;
  std::string body;
  Millis ttl_ms = 0;
  std::string resolved_by;
  std::string reason;
};

struct ProxyUnknownStat {
  std::string proxy;
  std::int64_t count = 0;
  Millis oldest_at = 0;  // updated_at of the oldest unknown key
};

class ProxyKeyStore {
 public:
  virtual ~ProxyKeyStore() = default;
  // See ProxyWriteBatch. Items fail independently; a storage failure fails the whole batch
  // and nothing is kept. Durable (synchronous=FULL / PostgreSQL commit) before it returns.
  virtual Result<ProxyWriteBatchResult> proxy_write_batch(const ProxyWriteBatch& batch) = 0;
  // Start-up of `owner`: each of its `claimed` rows becomes `unknown` (the previous process
  // may have sent before it died). Returns how many.
  virtual Result<int> proxy_orphan_owner(const std::string& owner) = 0;
  // Every `claimed` row whose lease ran out becomes `unknown`. Returns how many.
  virtual Result<int> proxy_expire_leases() = 0;
  virtual Result<ProxyKey> proxy_get(const std::string& id) = 0;
  // Newest first by id (as the other lists).
  virtual Result<Page<ProxyKey>> proxy_list(const ProxyKeyFilter& filter,
                                            const PageRequest& page) = 0;
  // Only an `unknown` key (else kConflict; absent -> kNotFound): kCompleted stores the answer
  // (replayable from now on, expires after ttl_ms), kNotExecuted deletes the row. The audit
  // entry is appended in the same transaction; without before/after they become the row's
  // JSON summary (state, status, owner, ...; no body) before and after.
  virtual Result<ProxyKey> proxy_resolve(const std::string& id, const ProxyResolution& resolution,
                                         std::optional<AuditEntry> audit) = 0;
  // Per proxy with unknown keys: how many and the oldest (metrics gauges).
  virtual Result<std::vector<ProxyUnknownStat>> proxy_unknown_stats() = 0;
};

// ---- audit log ----
struct AuditFilter {
  std::optional<std::string> actor;
  std::optional<std::string> action;
  std::optional<std::string> target_id;
};

class AuditStore {
 public:
  virtual ~AuditStore() = default;
  virtual Result<AuditEntry> append_audit(AuditEntry entry) = 0;
  virtual Result<Page<AuditEntry>> list_audit(const AuditFilter& filter,
                                              const PageRequest& page) = 0;
};

// The one call a group committer needs (Store implements it; tests fake it).
class BatchWriter {
 public:
  virtual ~BatchWriter() = default;
  // publish_batch(publishes) and dispatch_round(round) as ONE transaction (one commit: the
  // rows a publish writes and the dispatcher's round then share their fsync and the index
  // pages both touch; the round's claim sees the deliveries just published). Publishes go
  // first. A part that fails is undone alone (savepoint) and reported in its slot; a failed
  // commit fails both.
  virtual WriteBatchResult write_batch(const WriteBatch& batch) = 0;
};

// The one call the inbound group committer needs (Store implements it; tests fake it).
class InboxBatchWriter {
 public:
  virtual ~InboxBatchWriter() = default;
  // inbox_insert_batch(inserts) and inbox_round(round) as ONE transaction, inserts first (the
  // round's claim sees them; the rows both touch are written once). A part that fails is
  // undone alone and reported in its slot; a failed commit fails both. Durable when there
  // are inserts; a round alone commits as inbox_round does (without its own fsync).
  virtual InboxWriteBatchResult inbox_write_batch(InboxWriteBatch batch) = 0;
};

class Store : public ApplicationStore,
              public EndpointStore,
              public MessageStore,
              public DeliveryStore,
              public AttemptStore,
              public AttemptedStore,
              public RetentionStore,
              public FeedStore,
              public InboxStore,
              public IdempotencyStore,
              public ProxyKeyStore,
              public AuditStore,
              public ReconcileStore,
              public TaskStore,
              public BatchWriter,
              public InboxBatchWriter {
 public:
  // Creates or upgrades the schema. Idempotent; safe to run at every start.
  virtual Status migrate() = 0;
  // The schema version after migrate() (0 for an empty database).
  virtual Result<int> schema_version() = 0;
  // One tiny durable write transaction that leaves nothing behind (a schema_migrations row
  // inserted and deleted again), committed like any write: it fails (kUnavailable) when
  // the store cannot commit — disk full, file size limit, read-only file system, the
  // database gone — and succeeds once it can again. Readiness probes with it while commits
  // fail (app/store_health.hpp).
  virtual Status probe_commit() = 0;

  // The dispatcher's round trip: record_attempts(reports), defer_deliveries(deferrals),
  // expedite_endpoint(each), then claim_due(claim_limit) with each claimed delivery's
  // message. A backend should do it in ONE transaction (one commit for the lot); the
  // default calls those methods one after another. A storage failure fails the round: in
  // one transaction nothing is kept; in the default, the steps before the failure stay.
  virtual Result<DispatchRoundResult> dispatch_round(const DispatchRound& round);

  // See BatchWriter. The default makes the two calls one after the other (two commits).
  WriteBatchResult write_batch(const WriteBatch& batch) override;

  // See InboxBatchWriter. The default makes the two calls one after the other.
  InboxWriteBatchResult inbox_write_batch(InboxWriteBatch batch) override;

  // True when every write goes through one writer connection (SQLite): then the
  // dispatcher's rounds are better committed together with the publishes (write_batch)
  // than taking turns with them. False (PostgreSQL): rounds run on their own connection,
  // concurrently with publishes.
  virtual bool single_writer() const { return false; }
};

}  // namespace hookd::store
