#include "store/sqlite/migrations.hpp"

#include <fmt/format.h>

namespace hookd::store::sqlite {
namespace {

// Version 1: the whole initial schema. Times are Unix ms; lists/maps are JSON text.
constexpr std::string_view kV1 = R"sql(
CREATE TABLE applications (
  id          TEXT PRIMARY KEY,
  uid         TEXT UNIQUE,
  name        TEXT NOT NULL,
  rate_limit  INTEGER,
  metadata    TEXT NOT NULL DEFAULT '{}',
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);

CREATE TABLE event_types (
  name        TEXT PRIMARY KEY,
  description TEXT NOT NULL DEFAULT '',
  archived    INTEGER NOT NULL DEFAULT 0,
  schemas     TEXT NOT NULL DEFAULT '{}',
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);

CREATE TABLE endpoints (
  id                  TEXT PRIMARY KEY,
  app_id              TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
  uid                 TEXT,
  url                 TEXT NOT NULL,
  description         TEXT NOT NULL DEFAULT '',
  filter_types        TEXT,
  channels            TEXT,
  secret              TEXT NOT NULL,
  previous_secret     TEXT,
  previous_expires_at INTEGER,
  rate_limit          INTEGER,
  disabled            INTEGER NOT NULL DEFAULT 0,
  disabled_reason     TEXT,
  fifo                INTEGER NOT NULL DEFAULT 0,
  headers             TEXT NOT NULL DEFAULT '{}',
  retry_policy        TEXT,
  connect_timeout_ms  INTEGER,
  total_timeout_ms    INTEGER,
  metadata            TEXT NOT NULL DEFAULT '{}',
  created_at          INTEGER NOT NULL,
  updated_at          INTEGER NOT NULL,
  UNIQUE (app_id, uid)
);
CREATE INDEX endpoints_by_app ON endpoints(app_id, id);

CREATE TABLE messages (
  id           TEXT PRIMARY KEY,
  app_id       TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
  event_type   TEXT NOT NULL,
  event_id     TEXT,
  channels     TEXT,
  payload      BLOB NOT NULL,
  ordering_key TEXT,
  sequence     INTEGER,
  created_at   INTEGER NOT NULL,
  UNIQUE (app_id, event_id)
);
CREATE INDEX messages_by_app ON messages(app_id, id);

-- Last sequence handed out per (application, ordering key).
CREATE TABLE ordering_sequences (
  app_id        TEXT NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
  ordering_key  TEXT NOT NULL,
  last_sequence INTEGER NOT NULL,
  PRIMARY KEY (app_id, ordering_key)
);

-- The queue. Open rows: status pending/delivering.
CREATE TABLE deliveries (
  id                   TEXT PRIMARY KEY,
  msg_id               TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  endpoint_id          TEXT NOT NULL REFERENCES endpoints(id) ON DELETE CASCADE,
  app_id               TEXT NOT NULL,
  status               TEXT NOT NULL,
  attempts             INTEGER NOT NULL DEFAULT 0,
  next_attempt_at      INTEGER NOT NULL,
  lease_owner          TEXT,
  lease_until          INTEGER,
  first_attempt_at     INTEGER,
  last_attempt_at      INTEGER,
  last_error           TEXT,
  last_response_status INTEGER,
  ordering_key         TEXT,
  sequence             INTEGER,
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL
);
CREATE INDEX deliveries_due ON deliveries(next_attempt_at)
  WHERE status IN ('pending', 'delivering');
CREATE INDEX deliveries_fifo ON deliveries(endpoint_id, ordering_key, sequence)
  WHERE status IN ('pending', 'delivering');
CREATE INDEX deliveries_by_status ON deliveries(status, id);
CREATE INDEX deliveries_by_msg ON deliveries(msg_id);
CREATE INDEX deliveries_by_lease ON deliveries(lease_owner) WHERE lease_owner IS NOT NULL;

CREATE TABLE attempts (
  id               TEXT PRIMARY KEY,
  delivery_id      TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  msg_id           TEXT NOT NULL,
  endpoint_id      TEXT NOT NULL,
  app_id           TEXT NOT NULL,
  attempted_at     INTEGER NOT NULL,
  response_status  INTEGER,
  response_headers TEXT NOT NULL DEFAULT '{}',
  response_body    BLOB NOT NULL,
  duration_ms      INTEGER NOT NULL,
  error            TEXT,
  success          INTEGER NOT NULL,
  trigger          TEXT NOT NULL,
  url              TEXT NOT NULL DEFAULT ''
);
CREATE INDEX attempts_by_msg ON attempts(msg_id, id);
CREATE INDEX attempts_by_endpoint ON attempts(endpoint_id, id);

CREATE TABLE inbox (
  id              TEXT PRIMARY KEY,
  source          TEXT NOT NULL,
  event_id        TEXT NOT NULL,
  business_key    TEXT,
  entity_key      TEXT,
  sequence        INTEGER,
  event_time      INTEGER,
  received_at     INTEGER NOT NULL,
  processed_at    INTEGER,
  status          TEXT NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  lease_owner     TEXT,
  lease_until     INTEGER,
  depends_on      TEXT NOT NULL DEFAULT '[]',
  last_error      TEXT,
  headers         TEXT NOT NULL DEFAULT '{}',
  payload         BLOB NOT NULL,
  UNIQUE (source, event_id)
);
CREATE INDEX inbox_open ON inbox(source, entity_key, sequence, received_at, id)
  WHERE status IN ('received', 'processing', 'retry', 'parked');
CREATE INDEX inbox_due ON inbox(next_attempt_at)
  WHERE status IN ('received', 'processing', 'retry', 'parked');

CREATE TABLE inbox_history (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  inbox_id    TEXT NOT NULL REFERENCES inbox(id) ON DELETE CASCADE,
  at          INTEGER NOT NULL,
  from_status TEXT,
  to_status   TEXT NOT NULL,
  note        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX inbox_history_by_row ON inbox_history(inbox_id, seq);

CREATE TABLE inbox_entities (
  source        TEXT NOT NULL,
  entity_key    TEXT NOT NULL,
  last_sequence INTEGER,
  state         TEXT,
  terminal      INTEGER NOT NULL DEFAULT 0,
  updated_at    INTEGER NOT NULL,
  PRIMARY KEY (source, entity_key)
);

CREATE TABLE idempotency_keys (
  scope            TEXT NOT NULL,
  key              TEXT NOT NULL,
  fingerprint      TEXT NOT NULL,
  state            TEXT NOT NULL,
  response_status  INTEGER,
  response_headers TEXT NOT NULL DEFAULT '{}',
  response_body    BLOB NOT NULL DEFAULT x'',
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  expires_at       INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_expiry ON idempotency_keys(expires_at);

CREATE TABLE audit_log (
  id          TEXT PRIMARY KEY,
  at          INTEGER NOT NULL,
  actor       TEXT NOT NULL,
  action      TEXT NOT NULL,
  target_type TEXT NOT NULL,
  target_id   TEXT NOT NULL,
  reason      TEXT NOT NULL DEFAULT '',
  before      TEXT,
  after       TEXT
);
CREATE INDEX audit_by_target ON audit_log(target_id, id);
)sql";

// Version 2: the inbound business-key guard looks up processed events by business key.
constexpr std::string_view kV2 = R"sql(
CREATE INDEX inbox_by_business_key ON inbox(source, business_key) WHERE business_key IS NOT NULL;
)sql";

// Version 3: settling an inbound event releases the parked events that depend on it; this
// index lets that look at the source's parked rows only, not at every open row (a backlog).
constexpr std::string_view kV3 = R"sql(
CREATE INDEX inbox_parked ON inbox(source) WHERE status = 'parked';
)sql";

// Version 4: Svix message tags (a JSON list like channels; listing filters by one tag).
constexpr std::string_view kV4 = R"sql(
ALTER TABLE messages ADD COLUMN tags TEXT;
)sql";

// Version 5: endpoint revisions. Every change of an endpoint row adds one, and the delivery
// claim returns it, so the dispatcher re-reads a cached endpoint that changed before the
// claimed message was published (a rotation or new URL applies to the very next message).
constexpr std::string_view kV5 = R"sql(
ALTER TABLE endpoints ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;
)sql";

// Version 6: the idempotency gateway's keys (docs/proxy.md), one row per (proxy, tenant,
// key); a released key has no row. headers: a JSON array of [name, value] pairs in wire
// order. expires_at is 0 (never) for claimed and unknown rows. The state index serves the
// lease sweep, the start-up orphaning and the unknown gauges; the list index the lists by
// proxy (and state), newest first; the expiry index the purge.
constexpr std::string_view kV6 = R"sql(
CREATE TABLE proxy_keys (
  id          TEXT PRIMARY KEY,
  proxy       TEXT NOT NULL,
  tenant      TEXT NOT NULL,
  key         TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state       TEXT NOT NULL,
  owner       TEXT NOT NULL,
  lease_until INTEGER NOT NULL DEFAULT 0,
  status      INTEGER,
  headers     TEXT NOT NULL DEFAULT '[]',
  body        BLOB NOT NULL DEFAULT x'',
  body_size   INTEGER NOT NULL DEFAULT 0,
  body_sha256 TEXT NOT NULL DEFAULT '',
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL DEFAULT 0,
  resolved_by TEXT NOT NULL DEFAULT '',
  reason      TEXT NOT NULL DEFAULT '',
  UNIQUE (proxy, tenant, key)
);
CREATE INDEX proxy_keys_by_state ON proxy_keys(state, lease_until);
CREATE INDEX proxy_keys_by_proxy ON proxy_keys(proxy, state, id);
CREATE INDEX proxy_keys_expiry ON proxy_keys(expires_at) WHERE expires_at > 0;
)sql";

// Version 7: the outbound feed (docs/reconciliation.md). feed_seq is a delivery's position
// in its endpoint's feed, taken from the one-row feed_counter in the publishing transaction
// (the single writer makes that commit order; not the rowid, which SQLite may reuse after a
// delete). NULL: not in the feed (a resend). Rows from before this version keep their
// insertion order. feed_token_sha256: the SHA-256 (hex) of the endpoint's feed token.
constexpr std::string_view kV7 = R"sql(
ALTER TABLE deliveries ADD COLUMN feed_seq INTEGER;
UPDATE deliveries SET feed_seq = rowid;
CREATE TABLE feed_counter (
  id       INTEGER PRIMARY KEY CHECK (id = 1),
  last_seq INTEGER NOT NULL
);
INSERT INTO feed_counter (id, last_seq) SELECT 1, COALESCE(MAX(rowid), 0) FROM deliveries;
CREATE INDEX deliveries_feed ON deliveries(endpoint_id, feed_seq) WHERE feed_seq IS NOT NULL;
ALTER TABLE endpoints ADD COLUMN feed_token_sha256 TEXT;
CREATE UNIQUE INDEX endpoints_by_feed_token ON endpoints(feed_token_sha256)
  WHERE feed_token_sha256 IS NOT NULL;
)sql";

// Version 8: the inbound reconciler (docs/reconciliation.md, docs/storage.md "Migration 8").
// One row per source: the feed's cursor and watermark, and the lease that lets one run at a
// time across nodes. Runs. Differences, unique per (source, kind, subject); the repair event
// is kept so a person can repair later (its fields as JSON, its payload byte-exact), and
// `state` is the latest action's outcome (written with each action). Actions: append-only.
// inbox_entities_open serves the stuck-entity scan (non-terminal states, oldest first).
constexpr std::string_view kV8 = R"sql(
CREATE TABLE reconcile_sources (
  source       TEXT PRIMARY KEY,
  cursor       TEXT NOT NULL DEFAULT '',
  watermark_at INTEGER,
  lease_owner  TEXT,
  lease_until  INTEGER
);
CREATE TABLE reconcile_runs (
  id                TEXT PRIMARY KEY,
  source            TEXT NOT NULL,
  trigger           TEXT NOT NULL,
  owner             TEXT NOT NULL,
  started_at        INTEGER NOT NULL,
  finished_at       INTEGER,
  items_read        INTEGER NOT NULL DEFAULT 0,
  differences_found INTEGER NOT NULL DEFAULT 0,
  repaired          INTEGER NOT NULL DEFAULT 0,
  error             TEXT
);
CREATE INDEX reconcile_runs_by_source ON reconcile_runs(source, id);
CREATE TABLE reconcile_differences (
  id               TEXT PRIMARY KEY,
  run_id           TEXT NOT NULL DEFAULT '',
  source           TEXT NOT NULL,
  kind             TEXT NOT NULL,
  subject          TEXT NOT NULL,
  event_id         TEXT,
  entity_key       TEXT,
  local_state      TEXT,
  remote_state     TEXT,
  detail           TEXT NOT NULL DEFAULT '',
  evidence_request TEXT NOT NULL DEFAULT '',
  evidence_status  INTEGER,
  evidence_excerpt BLOB NOT NULL DEFAULT x'',
  evidence_sha256  TEXT NOT NULL DEFAULT '',
  repair_event     TEXT,
  repair_payload   BLOB NOT NULL DEFAULT x'',
  state            TEXT NOT NULL,
  found_at         INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  UNIQUE (source, kind, subject)
);
CREATE INDEX reconcile_differences_by_state ON reconcile_differences(state, id);
CREATE INDEX reconcile_differences_by_source ON reconcile_differences(source, state, id);
CREATE TABLE reconcile_actions (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,
  difference_id TEXT NOT NULL REFERENCES reconcile_differences(id),
  action        TEXT NOT NULL,
  actor         TEXT NOT NULL,
  reason        TEXT NOT NULL DEFAULT '',
  before        TEXT NOT NULL DEFAULT '',
  after         TEXT NOT NULL DEFAULT '',
  at            INTEGER NOT NULL
);
CREATE INDEX reconcile_actions_by_difference ON reconcile_actions(difference_id, seq);
CREATE INDEX inbox_entities_open ON inbox_entities(source, updated_at)
  WHERE terminal = 0 AND state IS NOT NULL;
)sql";

// Version 9: the Standard Webhooks header names an endpoint's deliveries carry ("both":
// webhook-* and svix-*, the default, also for endpoints from before this version; "webhook";
// "svix"), docs/api.md EndpointIn headerNaming.
constexpr std::string_view kV9EndpointHeaderNaming = R"sql(
ALTER TABLE endpoints ADD COLUMN header_naming TEXT NOT NULL DEFAULT 'both';
)sql";

// Version 10: Svix background tasks (qtask_): the record of an endpoint recover or
// replay-missing, written before the call answers (docs/api.md "Background tasks").
constexpr std::string_view kV10BackgroundTasks = R"sql(
CREATE TABLE background_tasks (
  id          TEXT PRIMARY KEY,
  task        TEXT NOT NULL,
  status      TEXT NOT NULL,
  data        TEXT NOT NULL DEFAULT '{}',
  app_id      TEXT NOT NULL DEFAULT '',
  endpoint_id TEXT NOT NULL DEFAULT '',
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE INDEX background_tasks_by_status ON background_tasks(status, id);
)sql";

// Version 11: what made a delivery ("scheduled": a publish, a replay-missing; "manual": a
// Svix resend), copied into each of its attempts as they are recorded (Svix triggerType).
constexpr std::string_view kV11DeliveryTrigger = R"sql(
ALTER TABLE deliveries ADD COLUMN trigger TEXT NOT NULL DEFAULT 'scheduled';
)sql";

// Version 12: retention deletes deliveries, and SQLite looks up each deleted delivery's attempts
// (ON DELETE CASCADE) by this index; without it every deleted delivery scanned all attempts.
constexpr std::string_view kV12AttemptsByDelivery = R"sql(
CREATE INDEX attempts_by_delivery ON attempts(delivery_id);
)sql";

constexpr std::string_view kMigrationsTable = R"sql(
CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  applied_at INTEGER NOT NULL
);
)sql";

}  // namespace

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> kAll = {
      // clang-format off
      {1, "initial schema", kV1},
      {2, "inbox business key index", kV2},
      {3, "inbox parked index", kV3},
      {4, "message tags", kV4},
      {5, "endpoint revisions", kV5},
      {6, "proxy keys", kV6},
      {7, "outbound feed", kV7},
      {8, "reconciler", kV8},
      {9, "endpoint header naming", kV9EndpointHeaderNaming},
      {10, "background tasks", kV10BackgroundTasks},
      {11, "delivery trigger", kV11DeliveryTrigger},
      {12, "attempts by delivery", kV12AttemptsByDelivery},
      // clang-format on
  };
  return kAll;
}

Result<int> current_schema_version(Connection& conn) {
  auto exists = conn.prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'");
  if (!exists) return std::unexpected(exists.error());
  auto has = exists->step();
  if (!has) return std::unexpected(has.error());
  if (!*has) return 0;
  auto q = conn.prepare("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
  if (!q) return std::unexpected(q.error());
  auto row = q->step();
  if (!row) return std::unexpected(row.error());
  return static_cast<int>(q->int64(0));
}

Status apply_migrations(Connection& conn, std::int64_t now_ms) {
  if (auto s = conn.exec(kMigrationsTable); !s) return s;
  for (const auto& m : migrations()) {
    // Re-read the version inside each transaction: another process may migrate too.
    auto applied = conn.transaction([&]() -> Status {
      auto version = current_schema_version(conn);
      if (!version) return std::unexpected(version.error());
      if (*version >= m.version) return {};
      if (auto s = conn.exec(m.sql); !s) return s;
      auto ins = conn.prepare(
          "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
      if (!ins) return std::unexpected(ins.error());
      return ins->bind_all(m.version, m.name, now_ms).run();
    });
    if (!applied) {
      applied.error().message = fmt::format("migration {}: {}", m.version, applied.error().message);
      return applied;
    }
  }
  return {};
}

}  // namespace hookd::store::sqlite
