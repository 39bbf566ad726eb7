// Idempotency keys on SQLite: an atomic begin (insert-or-inspect in one transaction),
// finish, mark unknown, release, purge.
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

Result<IdempotencyRecord> load_key(Connection& c, const std::string& scope,
                                   const std::string& key) {
  HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM idempotency_keys WHERE scope = ? AND key = ?",
                                     kIdemColumns)));
  q.bind_all(scope, key);
  return single<IdempotencyRecord>(q, read_idempotency, "idempotency key");
}

}  // namespace

// One upsert: a new key, or an expired one taken over, becomes in flight for this
// transaction; a live key is left alone and reported.
Result<IdempotencyBegin> SqliteStore::claim_key_in_tx(Connection& c, const PublishKey& k,
                                                      Millis now) {
  HOOKD_TRY(up, c.prepare("INSERT INTO idempotency_keys (scope, key, fingerprint, state, "
                          "created_at, updated_at, expires_at) VALUES (?, ?, ?, 'in_flight', ?, ?, "
                          "?) ON CONFLICT (scope, key) DO UPDATE SET fingerprint = "
                          "excluded.fingerprint, state = 'in_flight', response_status = NULL, "
                          "response_headers = '{}', response_body = x'', created_at = "
                          "excluded.created_at, updated_at = excluded.updated_at, expires_at = "
                          "excluded.expires_at WHERE idempotency_keys.expires_at <= "
                          "excluded.created_at"));
  HOOKD_CHECK(up.bind_all(k.scope, k.key, k.fingerprint, now, now, now + k.ttl_ms).run());
  const bool started = c.changes() == 1;
  HOOKD_TRY(record, load_key(c, k.scope, k.key));
  if (started) return IdempotencyBegin{IdempotencyBegin::Outcome::kStarted, record};
  return IdempotencyBegin{idempotency_outcome(record, k.fingerprint), record};
}

Result<IdempotencyRecord> SqliteStore::complete_key_in_tx(Connection& c, const PublishKey& k,
                                                          const StoredResponse& r, Millis now) {
  HOOKD_TRY(up, c.prepare("UPDATE idempotency_keys SET state = 'completed', response_status = ?, "
                          "response_headers = ?, response_body = ?, updated_at = ? "
                          "WHERE scope = ? AND key = ? AND state = 'in_flight'"));
  up.bind_all(r.status, encode_headers(r.headers));
  up.bind_blob(3, r.body).bind(4, now).bind(5, k.scope).bind(6, k.key);
  HOOKD_CHECK(up.run());
  if (c.changes() == 0) return fail(ErrorCode::kInternal, "claimed idempotency key vanished");
  return load_key(c, k.scope, k.key);
}

Result<IdempotencyBegin> SqliteStore::idem_begin(const std::string& scope, const std::string& key,
                                                 const std::string& fingerprint, Millis ttl_ms) {
  return write([&](Connection& c) -> Result<IdempotencyBegin> {
    const Millis now = clock_.now_ms();
    // An expired key is forgotten first, so it can start afresh.
    HOOKD_TRY(
        del,
        c.prepare("DELETE FROM idempotency_keys WHERE scope = ? AND key = ? AND expires_at <= ?"));
    HOOKD_CHECK(del.bind_all(scope, key, now).run());
    HOOKD_TRY(ins,
              c.prepare("INSERT INTO idempotency_keys (scope, key, fingerprint, state, created_at, "
                        "updated_at, expires_at) VALUES (?, ?, ?, 'in_flight', ?, ?, ?) "
                        "ON CONFLICT (scope, key) DO NOTHING"));
    HOOKD_CHECK(ins.bind_all(scope, key, fingerprint, now, now, now + ttl_ms).run());
    const bool started = c.changes() == 1;
    HOOKD_TRY(record, load_key(c, scope, key));
    if (started) return IdempotencyBegin{IdempotencyBegin::Outcome::kStarted, record};
    return IdempotencyBegin{idempotency_outcome(record, fingerprint), record};
  });
}

Status SqliteStore::idem_finish(const std::string& scope, const std::string& key,
                                std::int64_t status, const Headers& headers,
                                const std::string& body) {
  return write([&](Connection& c) -> Status {
    HOOKD_TRY(up, c.prepare("UPDATE idempotency_keys SET state = 'completed', response_status = ?, "
                            "response_headers = ?, response_body = ?, updated_at = ? "
                            "WHERE scope = ? AND key = ? AND state = 'in_flight'"));
    up.bind_all(status, encode_headers(headers));
    up.bind_blob(3, body).bind(4, clock_.now_ms()).bind(5, scope).bind(6, key);
    HOOKD_CHECK(up.run());
    if (c.changes() == 0) return fail(ErrorCode::kConflict, "idempotency key not in flight");
    return {};
  });
}

Status SqliteStore::idem_mark_unknown(const std::string& scope, const std::string& key) {
  return write([&](Connection& c) -> Status {
    HOOKD_TRY(up, c.prepare("UPDATE idempotency_keys SET state = 'unknown', updated_at = ? "
                            "WHERE scope = ? AND key = ? AND state = 'in_flight'"));
    HOOKD_CHECK(up.bind_all(clock_.now_ms(), scope, key).run());
    if (c.changes() == 0) return fail(ErrorCode::kConflict, "idempotency key not in flight");
    return {};
  });
}

Status SqliteStore::idem_release(const std::string& scope, const std::string& key) {
  return write([&](Connection& c) -> Status {
    HOOKD_TRY(del, c.prepare("DELETE FROM idempotency_keys WHERE scope = ? AND key = ?"));
    HOOKD_CHECK(del.bind_all(scope, key).run());
    if (c.changes() == 0) return fail(ErrorCode::kNotFound, "idempotency key not found");
    return {};
  });
}

Result<IdempotencyRecord> SqliteStore::idem_get(const std::string& scope, const std::string& key) {
  return read([&](Connection& c) { return load_key(c, scope, key); });
}

}  // namespace hookd::store::sqlite
