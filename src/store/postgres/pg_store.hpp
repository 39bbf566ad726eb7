// PgStore: the PostgreSQL Store backend, for several hookd nodes sharing one database
// (SPEC §2). Every method is one transaction on a connection from the node's own pool
// (PgPool); statements are prepared once per connection. The queue is claimed with
// `FOR UPDATE SKIP LOCKED` in batches and leases that expire, so any node may die at any
// moment. Per-key ordering across nodes: only the head (lowest open sequence) of a FIFO
// ordering key — or the first open inbox event of an entity — is claimable, and its lease
// is the key's lease: no other node can work on that key until the head is finished or its
// lease expires (see docs/storage.md). Transactions that hit a deadlock or serialization
// failure are retried a few times; a lost database gives kUnavailable and the pool
// reconnects by itself.
// Thread-safety: all methods may be called concurrently from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "hookd/env.hpp"
#include "store/id_generator.hpp"
#include "store/postgres/pg_pool.hpp"
#include "store/store.hpp"

namespace hookd::store::postgres {

struct PgOptions {
  std::string url;                    // postgresql://user@host:port/db?...
  int pool_size = 8;                  // connections this node opens at most
  std::optional<std::string> schema;  // tables live in this schema (created by migrate)
  int connect_timeout_s = 3;
  std::string application_name = "hookd";
};

class PgStore final : public Store {
 public:
  // Connects one connection to check the URL. `clock` and `ids` must outlive the store.
  static Result<std::unique_ptr<PgStore>> open(const PgOptions& options, Clock& clock,
                                               IdGenerator& ids);
  ~PgStore() override;

  Status migrate() override;
  // Round trips to the server so far, all connections (see ConnectionOptions::round_trips).
  std::int64_t round_trips() const { return round_trips_->load(std::memory_order_relaxed); }
  Result<int> schema_version() override;
  Status probe_commit() override;

  // ApplicationStore (the defaults repeat the interface's: callers holding the concrete
  // store may leave the audit entry out)
  Result<Application> create_application(Application app,
                                         std::optional<AuditEntry> audit = {}) override;
  Result<Application> get_application(const std::string& id_or_uid) override;
  Result<Page<Application>> list_applications(const PageRequest& page) override;
  Result<Application> update_application(const Application& app,
                                         std::optional<AuditEntry> audit = {}) override;
  Status delete_application(const std::string& id, std::optional<AuditEntry> audit = {}) override;
  Result<EventType> create_event_type(EventType type,
                                      std::optional<AuditEntry> audit = {}) override;
  Result<EventType> get_event_type(const std::string& name) override;
  Result<Page<EventType>> list_event_types(const PageRequest& page, bool include_archived) override;
  Result<EventType> update_event_type(const EventType& type,
                                      std::optional<AuditEntry> audit = {}) override;
  Status delete_event_type(const std::string& name, std::optional<AuditEntry> audit = {}) override;

  // EndpointStore
  Result<Endpoint> create_endpoint(Endpoint ep, std::optional<AuditEntry> audit = {}) override;
  Result<Endpoint> get_endpoint(const std::string& app_id, const std::string& id_or_uid) override;
  Result<Page<Endpoint>> list_endpoints(const std::string& app_id,
                                        const PageRequest& page) override;
  Result<Endpoint> update_endpoint(const Endpoint& ep,
                                   std::optional<AuditEntry> audit = {}) override;
  Status delete_endpoint(const std::string& app_id, const std::string& id,
                         std::optional<AuditEntry> audit = {}) override;
  Result<Endpoint> rotate_endpoint_secret(const std::string& app_id, const std::string& id,
                                          const std::string& new_secret, Millis previous_valid_ms,
                                          std::optional<AuditEntry> audit = {}) override;
  Result<EndpointTransition> set_endpoint_disabled(const std::string& app_id, const std::string& id,
                                                   bool disabled, std::optional<std::string> reason,
                                                   std::optional<AuditEntry> audit) override;

  // MessageStore
  Result<PublishOutcome> publish(const NewMessage& msg) override;
  Result<std::vector<PublishOutcome>> publish_batch(const std::vector<NewMessage>& msgs) override;
  Result<Message> get_message(const std::string& app_id,
                              const std::string& id_or_event_id) override;
  Result<Page<Message>> list_messages(const std::string& app_id, const MessageFilter& filter,
                                      const PageRequest& page) override;

  // DeliveryStore
  Result<std::vector<Delivery>> claim_due(const ClaimRequest& req) override;
  Result<Delivery> record_attempt(const AttemptReport& report) override;
  Result<std::vector<Result<Delivery>>> record_attempts(
      const std::vector<AttemptReport>& reports) override;
  Result<int> release_leases(const std::string& lease_owner) override;
  Result<int> defer_deliveries(const std::vector<Deferral>& items,
                               const std::string& lease_owner) override;
  Result<int> expedite_endpoint(const std::string& endpoint_id) override;
  Result<DispatchRoundResult> dispatch_round(const DispatchRound& round) override;
  Result<Delivery> get_delivery(const std::string& id) override;
  Result<std::vector<Delivery>> list_deliveries_for_message(const std::string& msg_id) override;
  Result<std::int64_t> count_deliveries(DeliveryStatus status) override;
  Result<std::optional<Millis>> oldest_waiting_delivery() override;
  Result<Page<Delivery>> list_dead(const DeadLetterFilter& filter,
                                   const PageRequest& page) override;
  Result<int> replay_dead(const std::vector<std::string>& delivery_ids,
                          std::optional<std::string> to_endpoint_id,
                          const AuditEntry& audit) override;
  Result<int> discard_dead(const std::vector<std::string>& delivery_ids,
                           const AuditEntry& audit) override;
  Result<Delivery> resend(const std::string& msg_id, const std::string& endpoint_id,
                          std::optional<AuditEntry> audit = {}) override;
  Result<int> recover(const std::string& endpoint_id, Millis since, std::optional<Millis> until,
                      std::optional<AuditEntry> audit = {}) override;
  Result<int> replay_missing(const std::string& endpoint_id, Millis since,
                             std::optional<Millis> until,
                             std::optional<AuditEntry> audit = {}) override;
  Result<EndpointStats> endpoint_stats(const std::string& endpoint_id, std::optional<Millis> since,
                                       std::optional<Millis> until) override;

  // TaskStore
  Status put_task(const BackgroundTask& task) override;
  Result<BackgroundTask> get_task(const std::string& id) override;
  Result<Page<BackgroundTask>> list_tasks(const TaskFilter& filter,
                                          const PageRequest& page) override;

  // AttemptStore
  Result<Page<Attempt>> list_attempts(const AttemptFilter& filter,
                                      const PageRequest& page) override;

  // RetentionStore (pg_retention.cpp)
  Result<PurgeBatch> purge_batch(const PurgeRequest& request) override;
  Result<std::vector<RetentionStat>> retention_stats() override;
  Result<std::int64_t> reclaim_space(int max_pages) override;

  // AttemptedStore (pg_attempted.cpp)
  Result<Page<EndpointMessage>> list_endpoint_messages(const std::string& endpoint_id,
                                                       const EndpointMessageFilter& filter,
                                                       const PageRequest& page) override;
  Result<Page<MessageDestination>> list_message_destinations(const std::string& msg_id,
                                                             const PageRequest& page) override;
  Result<ExpungeOutcome> expunge_message_content(const std::string& app_id,
                                                 const std::string& id_or_event_id,
                                                 std::optional<AuditEntry> audit) override;
  Status expunge_attempt_content(const std::string& msg_id, const std::string& attempt_id,
                                 std::optional<AuditEntry> audit) override;

  // FeedStore
  Result<FeedPage> feed_page(const std::string& endpoint_id, const std::string& iterator,
                             int limit) override;
  Status set_feed_token(const std::string& app_id, const std::string& endpoint_id,
                        const std::string& token_sha256, bool replace,
                        std::optional<AuditEntry> audit) override;
  Result<std::string> feed_token_endpoint(const std::string& token_sha256) override;

  // InboxStore
  Result<InboxInsertOutcome> inbox_insert(InboxEvent ev) override;
  Result<std::vector<InboxInsertOutcome>> inbox_insert_batch(std::vector<InboxEvent> evs) override;
  Result<InboxEvent> inbox_get(const std::string& id) override;
  Result<InboxEvent> inbox_find(const std::string& source, const std::string& event_id) override;
  Result<Page<InboxEvent>> inbox_list(const InboxFilter& filter, const PageRequest& page) override;
  Result<std::vector<InboxEvent>> inbox_claim(const InboxClaimRequest& req) override;
  Result<InboxEvent> inbox_update_status(const InboxStatusUpdate& update) override;
  Result<std::vector<Result<InboxEvent>>> inbox_update_status_batch(
      const std::vector<InboxStatusUpdate>& updates) override;
  Result<InboxRoundResult> inbox_round(const InboxRound& round) override;
  Result<InboxEvent> inbox_replay_dead(const std::string& id, const AuditEntry& audit) override;
  Result<bool> inbox_business_key_processed(const std::string& source,
                                            const std::string& business_key) override;
  Result<int> inbox_release_leases(const std::string& lease_owner) override;
  Result<std::optional<Millis>> inbox_oldest_waiting() override;
  Result<std::vector<InboxHistoryEntry>> inbox_history(const std::string& id) override;
  Result<InboxEntity> inbox_entity(const std::string& source,
                                   const std::string& entity_key) override;

  // IdempotencyStore
  Result<IdempotencyBegin> idem_begin(const std::string& scope, const std::string& key,
                                      const std::string& fingerprint, Millis ttl_ms) override;
  Status idem_finish(const std::string& scope, const std::string& key, std::int64_t status,
                     const Headers& headers, const std::string& body) override;
  Status idem_mark_unknown(const std::string& scope, const std::string& key) override;
  Status idem_release(const std::string& scope, const std::string& key) override;
  Result<IdempotencyRecord> idem_get(const std::string& scope, const std::string& key) override;

  // ProxyKeyStore
  Result<ProxyWriteBatchResult> proxy_write_batch(const ProxyWriteBatch& batch) override;
  Result<int> proxy_orphan_owner(const std::string& owner) override;
  Result<int> proxy_expire_leases() override;
  Result<ProxyKey> proxy_get(const std::string& id) override;
  Result<Page<ProxyKey>> proxy_list(const ProxyKeyFilter& filter, const PageRequest& page) override;
  Result<ProxyKey> proxy_resolve(const std::string& id, const ProxyResolution& resolution,
                                 std::optional<AuditEntry> audit) override;
  Result<std::vector<ProxyUnknownStat>> proxy_unknown_stats() override;

  // AuditStore
  Result<AuditEntry> append_audit(AuditEntry entry) override;
  Result<Page<AuditEntry>> list_audit(const AuditFilter& filter, const PageRequest& page) override;

  // ReconcileStore (pg_reconcile.cpp)
  Result<ReconcileStart> reconcile_begin(const std::string& source, const std::string& owner,
                                         Millis lease_ms, const std::string& trigger) override;
  Result<ReconcilePageResult> reconcile_apply_page(const ReconcilePage& page) override;
  Result<std::vector<Difference>> reconcile_record(
      const std::vector<DifferenceFinding>& findings) override;
  Result<ReconcileRun> reconcile_finish(const std::string& run_id, const std::string& owner,
                                        std::optional<std::string> error) override;
  Result<ReconcileCursor> reconcile_cursor(const std::string& source) override;
  Result<ReconcileRun> reconcile_get_run(const std::string& id) override;
  Result<Page<ReconcileRun>> reconcile_list_runs(const std::optional<std::string>& source,
                                                 const PageRequest& page) override;
  Result<Difference> reconcile_get_difference(const std::string& id) override;
  Result<Page<Difference>> reconcile_list_differences(const DifferenceFilter& filter,
                                                      const PageRequest& page) override;
  Result<std::vector<DifferenceActionRecord>> reconcile_actions(
      const std::string& difference_id) override;
  Result<Difference> reconcile_act(const DifferenceAct& act) override;
  Result<std::vector<InboxEntity>> reconcile_stuck_entities(const std::string& source,
                                                            Millis updated_before,
                                                            int limit) override;
  Result<std::vector<InboxEvent>> reconcile_timed_out_parked(const std::string& source,
                                                             int limit) override;
  Result<std::vector<DifferenceStat>> reconcile_stats() override;

 private:
  PgStore(const PgOptions& options, Clock& clock, IdGenerator& ids);

  // Runs `body(conn)` in one transaction; retried on deadlock/serialization failure.
  // `durable` false only for claims (see PgConnection::transaction).
  template <class F>
  auto write(F&& body, bool durable = true) -> decltype(body(std::declval<PgConnection&>())) {
    for (int attempt = 0;; ++attempt) {
      auto lease = pool_.acquire();
      if (!lease) return std::unexpected(lease.error());
      PgConnection& c = lease->conn();
      auto r = c.transaction([&] { return body(c); }, durable);
      if (r || attempt >= 4 || !c.retryable_failure()) return r;
    }
  }

  // Runs `body(conn)`, which makes its own transaction (one pipeline or one statement), on a
  // pooled connection: rerun on deadlock or serialization failure, and once when the link
  // failed (a restarted server: the connection found dead is reconnected for the rerun). A
  // rerun after a lost answer whose transaction did commit is harmless for the inbox: its
  // updates then find no lease (kConflict), its inserts find duplicates, its claims expire.
  template <class F>
  auto alone(F&& body) -> decltype(body(std::declval<PgConnection&>())) {
    for (int attempt = 0;; ++attempt) {
      auto lease = pool_.acquire();
      if (!lease) return std::unexpected(lease.error());
      PgConnection& c = lease->conn();
      auto r = body(c);
      if (r || attempt >= 4) return r;
      const bool link_lost = attempt == 0 && r.error().code == ErrorCode::kUnavailable;
      if (!link_lost && !c.retryable_failure()) return r;
    }
  }

  // Runs `body(conn)` on a pooled connection in autocommit mode (reads).
  template <class F>
  auto read(F&& body) -> decltype(body(std::declval<PgConnection&>())) {
    auto lease = pool_.acquire();
    if (!lease) return std::unexpected(lease.error());
    return body(lease->conn());
  }

  // Helpers shared by aggregates (bodies run inside a write transaction).
  Result<PublishOutcome> publish_in_tx(PgConnection& c, const NewMessage& msg, Millis now);
  // Publishes the items not settled by their Idempotency-Key (`out[i]` already set).
  Status publish_items_in_tx(PgConnection& c, const std::vector<NewMessage>& msgs,
                             const std::vector<bool>& settled, std::vector<PublishOutcome>& out,
                             Millis now);
  Result<IdempotencyBegin> claim_key_in_tx(PgConnection& c, const PublishKey& key, Millis now);
  Result<IdempotencyRecord> complete_key_in_tx(PgConnection& c, const PublishKey& key,
                                               const StoredResponse& response, Millis now);
  Result<AuditEntry> append_audit_in_tx(PgConnection& c, AuditEntry entry, Millis now);
  // A delivery outside the feed (a resend: the message is in the feed already).
  Result<Delivery> insert_delivery_in_tx(PgConnection& c, const Message& msg,
                                         const std::string& endpoint_id, Millis now);
  // The inbox's status changes and claim as one transaction sent as one pipeline
  // (pg_inbox_round.cpp); `durable` false: the commit does not wait for the WAL flush.
  Result<InboxRoundResult> pipelined_inbox_round(PgConnection& c,
                                                 const std::vector<InboxStatusUpdate>& updates,
                                                 const std::optional<InboxClaimRequest>& claim,
                                                 Millis now, bool durable);
  Result<std::vector<Delivery>> claim_in_tx(PgConnection& c, const ClaimRequest& req, Millis now);
  Result<std::vector<Result<Delivery>>> record_attempts_in_tx(
      PgConnection& c, const std::vector<AttemptReport>& reports, Millis now);
  Result<int> defer_in_tx(PgConnection& c, const std::vector<Deferral>& items,
                          const std::string& lease_owner, Millis now);
  Result<int> expedite_in_tx(PgConnection& c, const std::string& endpoint_id, Millis now);
  // The webhook's dedup insert of one event (ON CONFLICT DO NOTHING, first history row with
  // its history_note) inside the caller's transaction.
  Result<InboxInsertOutcome> inbox_insert_in_tx(PgConnection& c, InboxEvent ev, Millis now);
  // Records `d` (id, state, times assigned) unless its (source, kind, subject) is recorded:
  // false then. With `repair` and a repair event, inserts it and appends auto's repair.
  Result<bool> record_difference_in_tx(PgConnection& c, Difference& d, bool repair, Millis now);
  // The release of a parked_timeout difference's parked event (pg_reconcile.cpp).
  Status release_parked_in_tx(PgConnection& c, const Difference& d, Millis now);
  // dispatch_round's transaction, sent as one pipeline (pg_dispatch_round.cpp).
  Result<DispatchRoundResult> pipelined_round(PgConnection& c, const DispatchRound& round,
                                              Millis now);

  Clock& clock_;
  IdGenerator& ids_;
  std::shared_ptr<std::atomic<std::int64_t>> round_trips_;
  PgPool pool_;
  std::optional<std::string> schema_;
};

}  // namespace hookd::store::postgres
