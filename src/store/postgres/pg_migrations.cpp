#include "store/postgres/pg_migrations.hpp"

#include <fmt/format.h>

namespace hookd::store::postgres {
namespace {

// Version 1: the SQLite schema of version 1 in PostgreSQL types (BIGINT times, BOOLEAN
// flags, BYTEA payloads). Lists and maps stay JSON text, as on SQLite. Text sorts byte-wise
// (COLLATE "C") whatever the database's locale: ids are time-sortable byte-wise and are
// the paging cursors.
constexpr std::string_view kV1 = R"sql(
CREATE TABLE applications (
  id          TEXT COLLATE "C" PRIMARY KEY,
  uid         TEXT COLLATE "C" UNIQUE,
  name        TEXT COLLATE "C" NOT NULL,
  rate_limit  BIGINT,
  metadata    TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  created_at  BIGINT NOT NULL,
  updated_at  BIGINT NOT NULL
);

CREATE TABLE event_types (
  name        TEXT COLLATE "C" PRIMARY KEY,
  description TEXT COLLATE "C" NOT NULL DEFAULT '',
  archived    BOOLEAN NOT NULL DEFAULT FALSE,
  schemas     TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  created_at  BIGINT NOT NULL,
  updated_at  BIGINT NOT NULL
);

CREATE TABLE endpoints (
  id                  TEXT COLLATE "C" PRIMARY KEY,
  app_id              TEXT COLLATE "C" NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
  uid                 TEXT COLLATE "C",
  url                 TEXT COLLATE "C" NOT NULL,
  description         TEXT COLLATE "C" NOT NULL DEFAULT '',
  filter_types        TEXT COLLATE "C",
  channels            TEXT COLLATE "C",
  secret              TEXT COLLATE "C" NOT NULL,
  previous_secret     TEXT COLLATE "C",
  previous_expires_at BIGINT,
  rate_limit          BIGINT,
  disabled            BOOLEAN NOT NULL DEFAULT FALSE,
  disabled_reason     TEXT COLLATE "C",
  fifo                BOOLEAN NOT NULL DEFAULT FALSE,
  headers             TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  retry_policy        TEXT COLLATE "C",
  connect_timeout_ms  BIGINT,
  total_timeout_ms    BIGINT,
  metadata            TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  created_at          BIGINT NOT NULL,
  updated_at          BIGINT NOT NULL,
  UNIQUE (app_id, uid)
);
CREATE INDEX endpoints_by_app ON endpoints(app_id, id);

CREATE TABLE messages (
  id           TEXT COLLATE "C" PRIMARY KEY,
  app_id       TEXT COLLATE "C" NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
  event_type   TEXT COLLATE "C" NOT NULL,
  event_id     TEXT COLLATE "C",
  channels     TEXT COLLATE "C",
  payload      BYTEA NOT NULL,
  ordering_key TEXT COLLATE "C",
  sequence     BIGINT,
  created_at   BIGINT NOT NULL,
  UNIQUE (app_id, event_id)
);
CREATE INDEX messages_by_app ON messages(app_id, id);

CREATE TABLE ordering_sequences (
  app_id        TEXT COLLATE "C" NOT NULL REFERENCES applications(id) ON DELETE CASCADE,
  ordering_key  TEXT COLLATE "C" NOT NULL,
  last_sequence BIGINT NOT NULL,
  PRIMARY KEY (app_id, ordering_key)
);

CREATE TABLE deliveries (
  id                   TEXT COLLATE "C" PRIMARY KEY,
  msg_id               TEXT COLLATE "C" NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  endpoint_id          TEXT COLLATE "C" NOT NULL REFERENCES endpoints(id) ON DELETE CASCADE,
  app_id               TEXT COLLATE "C" NOT NULL,
  status               TEXT COLLATE "C" NOT NULL,
  attempts             BIGINT NOT NULL DEFAULT 0,
  next_attempt_at      BIGINT NOT NULL,
  lease_owner          TEXT COLLATE "C",
  lease_until          BIGINT,
  first_attempt_at     BIGINT,
  last_attempt_at      BIGINT,
  last_error           TEXT COLLATE "C",
  last_response_status BIGINT,
  ordering_key         TEXT COLLATE "C",
  sequence             BIGINT,
  created_at           BIGINT NOT NULL,
  updated_at           BIGINT NOT NULL
);
CREATE INDEX deliveries_due ON deliveries(next_attempt_at, id)
  WHERE status IN ('pending', 'delivering');
CREATE INDEX deliveries_fifo ON deliveries(endpoint_id, ordering_key, sequence)
  WHERE status IN ('pending', 'delivering');
CREATE INDEX deliveries_by_status ON deliveries(status, id);
CREATE INDEX deliveries_by_msg ON deliveries(msg_id);
CREATE INDEX deliveries_by_endpoint ON deliveries(endpoint_id);
CREATE INDEX deliveries_by_lease ON deliveries(lease_owner) WHERE lease_owner IS NOT NULL;

CREATE TABLE attempts (
  id               TEXT COLLATE "C" PRIMARY KEY,
  delivery_id      TEXT COLLATE "C" NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
  msg_id           TEXT COLLATE "C" NOT NULL,
  endpoint_id      TEXT COLLATE "C" NOT NULL,
  app_id           TEXT COLLATE "C" NOT NULL,
  attempted_at     BIGINT NOT NULL,
  response_status  BIGINT,
  response_headers TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  response_body    BYTEA NOT NULL,
  duration_ms      BIGINT NOT NULL,
  error            TEXT COLLATE "C",
  success          BOOLEAN NOT NULL,
  trigger          TEXT COLLATE "C" NOT NULL,
  url              TEXT COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX attempts_by_msg ON attempts(msg_id, id);
CREATE INDEX attempts_by_endpoint ON attempts(endpoint_id, id);
CREATE INDEX attempts_by_delivery ON attempts(delivery_id);

CREATE TABLE inbox (
  id              TEXT COLLATE "C" PRIMARY KEY,
  source          TEXT COLLATE "C" NOT NULL,
  event_id        TEXT COLLATE "C" NOT NULL,
  business_key    TEXT COLLATE "C",
  entity_key      TEXT COLLATE "C",
  sequence        BIGINT,
  event_time      BIGINT,
  received_at     BIGINT NOT NULL,
  processed_at    BIGINT,
  status          TEXT COLLATE "C" NOT NULL,
  attempts        BIGINT NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  lease_owner     TEXT COLLATE "C",
  lease_until     BIGINT,
  depends_on      TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  last_error      TEXT COLLATE "C",
  headers         TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  payload         BYTEA NOT NULL,
  UNIQUE (source, event_id)
);
CREATE INDEX inbox_open ON inbox(source, entity_key, sequence, received_at, id)
  WHERE status IN ('received', 'processing', 'retry', 'parked');
CREATE INDEX inbox_due ON inbox(next_attempt_at)
  WHERE status IN ('received', 'processing', 'retry', 'parked');

CREATE TABLE inbox_history (
  seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  inbox_id    TEXT COLLATE "C" NOT NULL REFERENCES inbox(id) ON DELETE CASCADE,
  at          BIGINT NOT NULL,
  from_status TEXT COLLATE "C",
  to_status   TEXT COLLATE "C" NOT NULL,
  note        TEXT COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX inbox_history_by_row ON inbox_history(inbox_id, seq);

CREATE TABLE inbox_entities (
  source        TEXT COLLATE "C" NOT NULL,
  entity_key    TEXT COLLATE "C" NOT NULL,
  last_sequence BIGINT,
  state         TEXT COLLATE "C",
  terminal      BOOLEAN NOT NULL DEFAULT FALSE,
  updated_at    BIGINT NOT NULL,
  PRIMARY KEY (source, entity_key)
);

CREATE TABLE idempotency_keys (
  scope            TEXT COLLATE "C" NOT NULL,
  key              TEXT COLLATE "C" NOT NULL,
  fingerprint      TEXT COLLATE "C" NOT NULL,
  state            TEXT COLLATE "C" NOT NULL,
  response_status  BIGINT,
  response_headers TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  response_body    BYTEA NOT NULL DEFAULT ''::bytea,
  created_at       BIGINT NOT NULL,
  updated_at       BIGINT NOT NULL,
  expires_at       BIGINT NOT NULL,
  PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_expiry ON idempotency_keys(expires_at);

CREATE TABLE audit_log (
  id          TEXT COLLATE "C" PRIMARY KEY,
  at          BIGINT NOT NULL,
  actor       TEXT COLLATE "C" NOT NULL,
  action      TEXT COLLATE "C" NOT NULL,
  target_type TEXT COLLATE "C" NOT NULL,
  target_id   TEXT COLLATE "C" NOT NULL,
  reason      TEXT COLLATE "C" NOT NULL DEFAULT '',
  before      TEXT COLLATE "C",
  after       TEXT COLLATE "C"
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
ALTER TABLE messages ADD COLUMN tags TEXT COLLATE "C";
)sql";

// Version 5: endpoint revisions (see the SQLite migration 5).
constexpr std::string_view kV5 = R"sql(
ALTER TABLE endpoints ADD COLUMN revision BIGINT NOT NULL DEFAULT 1;
)sql";

// Version 6: the idempotency gateway's keys (see the SQLite migration 6).
constexpr std::string_view kV6 = R"sql(
CREATE TABLE proxy_keys (
  id          TEXT COLLATE "C" PRIMARY KEY,
  proxy       TEXT COLLATE "C" NOT NULL,
  tenant      TEXT COLLATE "C" NOT NULL,
  key         TEXT COLLATE "C" NOT NULL,
  fingerprint TEXT COLLATE "C" NOT NULL,
  state       TEXT COLLATE "C" NOT NULL,
  owner       TEXT COLLATE "C" NOT NULL,
  lease_until BIGINT NOT NULL DEFAULT 0,
  status      BIGINT,
  headers     TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  body        BYTEA NOT NULL DEFAULT ''::bytea,
  body_size   BIGINT NOT NULL DEFAULT 0,
  body_sha256 TEXT COLLATE "C" NOT NULL DEFAULT '',
  created_at  BIGINT NOT NULL,
  updated_at  BIGINT NOT NULL,
  expires_at  BIGINT NOT NULL DEFAULT 0,
  resolved_by TEXT COLLATE "C" NOT NULL DEFAULT '',
  reason      TEXT COLLATE "C" NOT NULL DEFAULT '',
  UNIQUE (proxy, tenant, key)
);
CREATE INDEX proxy_keys_by_state ON proxy_keys(state, lease_until);
CREATE INDEX proxy_keys_by_proxy ON proxy_keys(proxy, state, id);
CREATE INDEX proxy_keys_expiry ON proxy_keys(expires_at) WHERE expires_at > 0;
)sql";

// Version 7: the outbound feed (docs/reconciliation.md). feed_xid is the id of the
// transaction that wrote the delivery (a stable default: rows from before this version all
// get the migration's own); a page reads only rows below the oldest transaction still in
// flight, so a slow commit never lands behind a reader's cursor. NULL: not in the feed (a
// resend). feed_token_sha256: the SHA-256 (hex) of the endpoint's feed token.
constexpr std::string_view kV7 = R"sql(
ALTER TABLE deliveries ADD COLUMN feed_xid xid8 DEFAULT pg_current_xact_id();
CREATE INDEX deliveries_feed ON deliveries(endpoint_id, feed_xid, id) WHERE feed_xid IS NOT NULL;
ALTER TABLE endpoints ADD COLUMN feed_token_sha256 TEXT COLLATE "C";
CREATE UNIQUE INDEX endpoints_by_feed_token ON endpoints(feed_token_sha256)
  WHERE feed_token_sha256 IS NOT NULL;
)sql";

// Version 8: the inbound reconciler (see the SQLite migration 8, docs/storage.md "Migration
// 8"). The evidence excerpt and the repair event's payload are bytes (BYTEA); the repair
// event's other fields are JSON text. reconcile_sources' row is the source's lease, taken
// with a conditional upsert (one winner however many nodes race). inbox_entities_open
// serves the stuck-entity scan (non-terminal states, oldest first).
constexpr std::string_view kV8 = R"sql(
CREATE TABLE reconcile_sources (
  source       TEXT COLLATE "C" PRIMARY KEY,
  cursor       TEXT COLLATE "C" NOT NULL DEFAULT '',
  watermark_at BIGINT,
  lease_owner  TEXT COLLATE "C",
  lease_until  BIGINT
);
CREATE TABLE reconcile_runs (
  id                TEXT COLLATE "C" PRIMARY KEY,
  source            TEXT COLLATE "C" NOT NULL,
  trigger           TEXT COLLATE "C" NOT NULL,
  owner             TEXT COLLATE "C" NOT NULL,
  started_at        BIGINT NOT NULL,
  finished_at       BIGINT,
  items_read        BIGINT NOT NULL DEFAULT 0,
  differences_found BIGINT NOT NULL DEFAULT 0,
  repaired          BIGINT NOT NULL DEFAULT 0,
  error             TEXT COLLATE "C"
);
CREATE INDEX reconcile_runs_by_source ON reconcile_runs(source, id);
CREATE TABLE reconcile_differences (
  id               TEXT COLLATE "C" PRIMARY KEY,
  run_id           TEXT COLLATE "C" NOT NULL DEFAULT '',
  source           TEXT COLLATE "C" NOT NULL,
  kind             TEXT COLLATE "C" NOT NULL,
  subject          TEXT COLLATE "C" NOT NULL,
  event_id         TEXT COLLATE "C",
  entity_key       TEXT COLLATE "C",
  local_state      TEXT COLLATE "C",
  remote_state     TEXT COLLATE "C",
  detail           TEXT COLLATE "C" NOT NULL DEFAULT '',
  evidence_request TEXT COLLATE "C" NOT NULL DEFAULT '',
  evidence_status  BIGINT,
  evidence_excerpt BYTEA NOT NULL DEFAULT ''::bytea,
  evidence_sha256  TEXT COLLATE "C" NOT NULL DEFAULT '',
  repair_event     TEXT COLLATE "C",
  repair_payload   BYTEA NOT NULL DEFAULT ''::bytea,
  state            TEXT COLLATE "C" NOT NULL,
  found_at         BIGINT NOT NULL,
  updated_at       BIGINT NOT NULL,
  UNIQUE (source, kind, subject)
);
CREATE INDEX reconcile_differences_by_state ON reconcile_differences(state, id);
CREATE INDEX reconcile_differences_by_source ON reconcile_differences(source, state, id);
CREATE TABLE reconcile_actions (
  seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  difference_id TEXT COLLATE "C" NOT NULL REFERENCES reconcile_differences(id),
  action        TEXT COLLATE "C" NOT NULL,
  actor         TEXT COLLATE "C" NOT NULL,
  reason        TEXT COLLATE "C" NOT NULL DEFAULT '',
  before        TEXT COLLATE "C" NOT NULL DEFAULT '',
  after         TEXT COLLATE "C" NOT NULL DEFAULT '',
  at            BIGINT NOT NULL
);
CREATE INDEX reconcile_actions_by_difference ON reconcile_actions(difference_id, seq);
CREATE INDEX inbox_entities_open ON inbox_entities(source, updated_at)
  WHERE NOT terminal AND state IS NOT NULL;
)sql";

// Version 9: the Standard Webhooks header names an endpoint's deliveries carry ("both":
// webhook-* and svix-*, the default, also for endpoints from before this version; "webhook";
// "svix"), docs/api.md EndpointIn headerNaming.
constexpr std::string_view kV9EndpointHeaderNaming = R"sql(
ALTER TABLE endpoints ADD COLUMN header_naming TEXT COLLATE "C" NOT NULL DEFAULT 'both';
)sql";

// Version 10: Svix background tasks (qtask_): the record of an endpoint recover or
// replay-missing, written before the call answers (docs/api.md "Background tasks").
constexpr std::string_view kV10BackgroundTasks = R"sql(
CREATE TABLE background_tasks (
  id          TEXT COLLATE "C" PRIMARY KEY,
  task        TEXT COLLATE "C" NOT NULL,
  status      TEXT COLLATE "C" NOT NULL,
  data        TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  app_id      TEXT COLLATE "C" NOT NULL DEFAULT '',
  endpoint_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  created_at  BIGINT NOT NULL,
  updated_at  BIGINT NOT NULL
);
CREATE INDEX background_tasks_by_status ON background_tasks(status, id);
)sql";

// Version 11: what made a delivery ("scheduled": a publish, a replay-missing; "manual": a
// Svix resend), copied into each of its attempts as they are recorded (Svix triggerType).
constexpr std::string_view kV11DeliveryTrigger = R"sql(
ALTER TABLE deliveries ADD COLUMN trigger TEXT COLLATE "C" NOT NULL DEFAULT 'scheduled';
)sql";

constexpr std::string_view kMigrationsTable = R"sql(
CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)
)sql";

// Every node migrating at once waits here; the lock ends with the transaction.
constexpr std::string_view kMigrationLock = "SELECT pg_advisory_xact_lock(7283019451)";

}  // namespace

const std::vector<Migration>& pg_migrations() {
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
      // clang-format on
  };
  return kAll;
}

Result<int> current_pg_schema_version(PgConnection& conn) {
  auto exists = conn.query("SELECT to_regclass('schema_migrations') IS NOT NULL");
  if (!exists) return std::unexpected(exists.error());
  if (!exists->boolean(0, 0)) return 0;
  auto q = conn.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
  if (!q) return std::unexpected(q.error());
  return static_cast<int>(q->int64(0, 0));
}

Status apply_pg_migrations(PgConnection& conn, const std::optional<std::string>& schema,
                           std::int64_t now_ms) {
  auto prepared = conn.transaction([&]() -> Status {
    if (auto s = conn.exec(kMigrationLock); !s) return s;
    if (schema) {
      if (auto s = conn.exec(fmt::format("CREATE SCHEMA IF NOT EXISTS \"{}\"", *schema)); !s) {
        return s;
      }
    }
    return conn.exec(kMigrationsTable);
  });
  if (!prepared) return prepared;
  for (const auto& m : pg_migrations()) {
    auto applied = conn.transaction([&]() -> Status {
      if (auto s = conn.exec(kMigrationLock); !s) return s;
      auto version = current_pg_schema_version(conn);
      if (!version) return std::unexpected(version.error());
      if (*version >= m.version) return {};
      if (auto s = conn.exec(m.sql); !s) return s;
      auto ins = conn.query(
          "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
          Params().add_all(m.version, m.name, now_ms));
      if (!ins) return std::unexpected(ins.error());
      return {};
    });
    if (!applied) {
      applied.error().message = fmt::format("migration {}: {}", m.version, applied.error().message);
      return applied;
    }
  }
  return {};
}

}  // namespace hookd::store::postgres
