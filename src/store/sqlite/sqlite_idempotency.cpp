// Idempotency keys on SQLite: an atomic begin (insert-or-inspect in one transaction),
// finish, mark unknown, release, purge.
#include <fmt/format.h>

#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"
#include "store/sqlite/try.hpp"

namespace hookd::store::sqlite {
namespace {

Result<IdempotencyRecord> load_key(Connection& c, const std::string& scope,
                                   const std::string& key) {
  HOOKD_TRY(q, c.prepare(fmt::format("SELECT {} FROM idempotency_keys WHERE scope = ? AND key = ?",
                                     kIdemColumns)));
  q.bind_all(scope, key);
  return single<IdempotencyRecord>(q, read_idempotency, "idempotency key");
}

IdempotencyBegin::Outcome outcome_for(const IdempotencyRecord& r, const std::string& fp) {
  using O = IdempotencyBegin::Outcome;
  if (r.fingerprint != fp) return O::kMismatch;
  switch (r.state) {
    case IdempotencyState::kCompleted:
      return O::kReplay;
    case IdempotencyState::kInFlight:
      return O::kInFlight;
    case IdempotencyState::kUnknown:
      return O::kUnknown;
  }
  return O::kUnknown;
}

}  // namespace

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
    return IdempotencyBegin{outcome_for(record, fingerprint), record};
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

Result<int> SqliteStore::idem_purge_expired() {
  return write([&](Connection& c) -> Result<int> {
    HOOKD_TRY(del, c.prepare("DELETE FROM idempotency_keys WHERE expires_at <= ?"));
    HOOKD_CHECK(del.bind_all(clock_.now_ms()).run());
    return static_cast<int>(c.changes());
  });
}

}  // namespace hookd::store::sqlite
