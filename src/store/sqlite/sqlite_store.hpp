// SqliteStore: the embedded, single-file Store backend (the default). WAL journal,
// synchronous=FULL by default, foreign keys on, busy_timeout, prepared statements cached per
// connection, versioned migrations.
// Thread-safety model: one writer connection behind a mutex (SQLite allows one writer at a
// time anyway; every write is a BEGIN IMMEDIATE transaction on it) plus a small pool of
// reader connections (WAL lets them read committed snapshots while the writer writes). For
// ":memory:" databases the pool is empty and reads go through the writer. All methods may be
// called concurrently from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hookd/env.hpp"
#include "store/id_generator.hpp"
#include "store/sqlite/checkpointer.hpp"
#include "store/sqlite/connection.hpp"
#include "store/store.hpp"

namespace hookd::store::sqlite {

struct SqliteOptions {
  std::string path = "hookd.db";  // ":memory:" for a private in-memory database
  std::string synchronous = "FULL";
  int busy_timeout_ms = 5000;
  int readers = 4;
  std::shared_ptr<FaultInjector> faults;  // tests only
  // WAL checkpoints on a background thread every this often (checkpointer.hpp); 0 keeps
  // SQLite's automatic checkpoints inside commits.
  std::chrono::milliseconds checkpoint_interval{100};
};

class SqliteStore final : public Store {
 public:
  // `clock` and `ids` must outlive the store.
  static Result<std::unique_ptr<SqliteStore>> open(const SqliteOptions& options, Clock& clock,
                                                   IdGenerator& ids);
  ~SqliteStore() override;

  Status migrate() override;
  Result<int> schema_version() override;
  Status probe_commit() override;
  Result<DispatchRoundResult> dispatch_round(const DispatchRound& round) override;
  WriteBatchResult write_batch(const WriteBatch& batch) override;
  InboxWriteBatchResult inbox_write_batch(InboxWriteBatch batch) override;
  bool single_writer() const override { return true; }

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

  // RetentionStore (sqlite_retention.cpp)
  Result<PurgeBatch> purge_batch(const PurgeRequest& request) override;
  Result<std::vector<RetentionStat>> retention_stats() override;
  Result<std::int64_t> reclaim_space(int max_pages) override;

  // AttemptedStore (sqlite_attempted.cpp)
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

  // ReconcileStore
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
  SqliteStore(Clock& clock, IdGenerator& ids, std::unique_ptr<Connection> writer,
              std::vector<std::unique_ptr<Connection>> readers);

  // Runs `body(conn)` in a write transaction on the writer connection.
  template <class F>
  auto write(F&& body) -> decltype(body(std::declval<Connection&>())) {
    std::lock_guard lock(writer_mu_);
    // A relaxed write could not restore the durable setting: never commit durable work
    // without it.
    if (restore_pending_) {
      if (auto s = writer_->exec(restore_synchronous_); !s) return std::unexpected(s.error());
      restore_pending_ = false;
    }
    return writer_->transaction([&] { return body(*writer_); });
  }

  // As write(), but this one commit does not wait for the fsync (synchronous=NORMAL for the
  // transaction) when the store runs with FULL/EXTRA. Only for bookkeeping whose loss on a
  // power failure merely repeats work: the forwarder's round (at least once; the app dedups
  // by Idempotency-Key). In WAL mode what a power failure can lose is a suffix of the log:
  // the next durable commit (an inbox insert) or checkpoint syncs every frame before it, so
  // an acknowledged event is never lost and the state stays a consistent earlier one.
  template <class F>
  auto write_relaxed(F&& body) -> decltype(body(std::declval<Connection&>())) {
    std::lock_guard lock(writer_mu_);
    if (restore_synchronous_.empty()) return writer_->transaction([&] { return body(*writer_); });
    if (auto s = writer_->exec("PRAGMA synchronous=NORMAL"); !s) {
      return writer_->transaction([&] { return body(*writer_); });  // stays durable
    }
    auto r = writer_->transaction([&] { return body(*writer_); });
    // Rare (the pragma only sets a flag). The relaxed work is committed either way, so its
    // result stands; the next durable write() restores the setting before it begins.
    restore_pending_ = !writer_->exec(restore_synchronous_).has_value();
    return r;
  }

  // Runs `body(conn)` on a reader connection (or the writer when there are none).
  template <class F>
  auto read(F&& body) -> decltype(body(std::declval<Connection&>())) {
    if (readers_.empty()) {
      std::lock_guard lock(writer_mu_);
      return body(*writer_);
    }
    Connection* conn = acquire_reader();
    auto r = body(*conn);
    release_reader(conn);
    return r;
  }

  Connection* acquire_reader();
  void release_reader(Connection* conn);

  // "PRAGMA synchronous=<configured>" when relaxed writes must restore FULL/EXTRA; empty when
  // the store already runs with NORMAL (or in memory), so write_relaxed() is write().
  std::string restore_synchronous_;
  bool restore_pending_ = false;  // under writer_mu_: restoring it failed after a relaxed write

  // Helpers shared by aggregates (bodies run inside a write transaction).
  Result<PublishOutcome> publish_in_tx(Connection& c, const NewMessage& msg, Millis now);
  Result<std::vector<PublishOutcome>> publish_batch_in_tx(Connection& c,
                                                          const std::vector<NewMessage>& msgs,
                                                          Millis now);
  Result<DispatchRoundResult> dispatch_round_in_tx(Connection& c, const DispatchRound& round,
                                                   Millis now);
  // A publish item with its Idempotency-Key (claim, publish, store the response).
  Result<PublishOutcome> publish_item_in_tx(Connection& c, const NewMessage& msg, Millis now);
  Result<IdempotencyBegin> claim_key_in_tx(Connection& c, const PublishKey& key, Millis now);
  Result<IdempotencyRecord> complete_key_in_tx(Connection& c, const PublishKey& key,
                                               const StoredResponse& response, Millis now);
  Result<Delivery> record_attempt_in_tx(Connection& c, const AttemptReport& report, Millis now);
  Result<std::vector<Result<Delivery>>> record_attempts_in_tx(
      Connection& c, const std::vector<AttemptReport>& reports, Millis now);
  Result<std::vector<Delivery>> claim_in_tx(Connection& c, const ClaimRequest& req, Millis now);
  Result<int> defer_in_tx(Connection& c, const std::vector<Deferral>& items,
                          const std::string& lease_owner, Millis now);
  Result<int> expedite_in_tx(Connection& c, const std::string& endpoint_id, Millis now);
  Result<AuditEntry> append_audit_in_tx(Connection& c, AuditEntry entry, Millis now);
  // `feed_seq`: the delivery's feed position (take_feed_seqs), nullopt = not in the feed.
  Result<Delivery> insert_delivery_in_tx(Connection& c, const Message& msg,
                                         const std::string& endpoint_id, Millis now,
                                         std::optional<std::int64_t> feed_seq);
  // Reserves `count` feed positions; returns the first (the counter row, same transaction).
  Result<std::int64_t> take_feed_seqs(Connection& c, std::int64_t count);
  Result<InboxInsertOutcome> inbox_insert_in_tx(Connection& c, InboxEvent& ev, Millis now);
  Result<std::vector<InboxInsertOutcome>> inbox_insert_batch_in_tx(Connection& c,
                                                                   std::vector<InboxEvent>& evs,
                                                                   Millis now);
  Result<InboxRoundResult> inbox_round_in_tx(Connection& c, const InboxRound& round, Millis now);
  Result<InboxEvent> inbox_update_in_tx(Connection& c, const InboxStatusUpdate& u, Millis now);
  Result<std::vector<Result<InboxEvent>>> inbox_update_batch_in_tx(
      Connection& c, const std::vector<InboxStatusUpdate>& updates, Millis now);
  Result<std::vector<InboxEvent>> inbox_claim_in_tx(Connection& c, const InboxClaimRequest& req,
                                                    Millis now);
  // Records `d` (id, state, times assigned) unless its (source, kind, subject) is recorded:
  // false then. With `repair` and a repair event, inserts it and appends auto's repair.
  Result<bool> record_difference_in_tx(Connection& c, Difference& d, bool repair, Millis now);
  // The release of a parked_timeout difference's parked event (sqlite_reconcile.cpp).
  Status release_parked_in_tx(Connection& c, const Difference& d, Millis now);

  Clock& clock_;
  IdGenerator& ids_;
  std::mutex writer_mu_;
  std::unique_ptr<Connection> writer_;
  std::vector<std::unique_ptr<Connection>> readers_;
  std::mutex readers_mu_;
  std::condition_variable readers_cv_;
  std::vector<Connection*> idle_readers_;
  std::unique_ptr<Checkpointer> checkpointer_;  // last: stops before the connections close
};

}  // namespace hookd::store::sqlite
