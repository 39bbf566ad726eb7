// Idempotency keys on PostgreSQL: an atomic begin (insert-or-inspect in one transaction),
// finish, mark unknown, release, purge.
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"

namespace hookd::store::postgres {
namespace {

Result<IdempotencyRecord> load_key(PgConnection& c, const std::string& scope,
                                   const std::string& key) {
  HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM idempotency_keys WHERE scope = $1 AND "
                                      "key = $2",
                                      kIdemColumns),
                          Params().add_all(scope, key)));
  return single<IdempotencyRecord>(rows, read_idempotency, "idempotency key");
}

Status changed(const Rows& rows, ErrorCode code, std::string_view what) {
  if (rows.affected() == 0) return fail(code, std::string(what));
  return {};
}

}  // namespace

// One upsert: a new key, or an expired one taken over, becomes in flight for this
// transaction (a concurrent claim of the same key on another node waits for our commit);
// a live key is left alone and reported.
Result<IdempotencyBegin> PgStore::claim_key_in_tx(PgConnection& c, const PublishKey& k,
                                                  Millis now) {
  HOOKD_TRY(up, c.query("INSERT INTO idempotency_keys (scope, key, fingerprint, state, "
                        "created_at, updated_at, expires_at) VALUES ($1, $2, $3, 'in_flight', $4, "
                        "$4, $5) ON CONFLICT (scope, key) DO UPDATE SET fingerprint = "
                        "EXCLUDED.fingerprint, state = 'in_flight', response_status = NULL, "
                        "response_headers = '{}', response_body = ''::bytea, created_at = "
                        "EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, expires_at = "
                        "EXCLUDED.expires_at WHERE idempotency_keys.expires_at <= "
                        "EXCLUDED.created_at",
                        Params().add_all(k.scope, k.key, k.fingerprint, now, now + k.ttl_ms)));
  const bool started = up.affected() == 1;
  HOOKD_TRY(record, load_key(c, k.scope, k.key));
  if (started) return IdempotencyBegin{IdempotencyBegin::Outcome::kStarted, record};
  return IdempotencyBegin{idempotency_outcome(record, k.fingerprint), record};
}

Result<IdempotencyRecord> PgStore::complete_key_in_tx(PgConnection& c, const PublishKey& k,
                                                      const StoredResponse& r, Millis now) {
  Params p;
  p.add_all(r.status, encode_headers(r.headers)).add_bytes(r.body).add_all(now, k.scope, k.key);
  HOOKD_TRY(rows, c.query("UPDATE idempotency_keys SET state = 'completed', "
                          "response_status = $1, response_headers = $2, response_body = $3, "
                          "updated_at = $4 WHERE scope = $5 AND key = $6 AND state = 'in_flight'",
                          p));
  if (rows.affected() == 0) return fail(ErrorCode::kInternal, "claimed idempotency key vanished");
  return load_key(c, k.scope, k.key);
}

Result<IdempotencyBegin> PgStore::idem_begin(const std::string& scope, const std::string& key,
                                             const std::string& fingerprint, Millis ttl_ms) {
  return write([&](PgConnection& c) -> Result<IdempotencyBegin> {
    const Millis now = clock_.now_ms();
    // An expired key is forgotten first, so it can start afresh.
    HOOKD_CHECK(
        c.query("DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND "
                "expires_at <= $3",
                Params().add_all(scope, key, now)));
    HOOKD_TRY(ins, c.query("INSERT INTO idempotency_keys (scope, key, fingerprint, state, "
                           "created_at, updated_at, expires_at) VALUES ($1, $2, $3, 'in_flight', "
                           "$4, $4, $5) ON CONFLICT (scope, key) DO NOTHING",
                           Params().add_all(scope, key, fingerprint, now, now + ttl_ms)));
    const bool started = ins.affected() == 1;
    HOOKD_TRY(record, load_key(c, scope, key));
    if (started) return IdempotencyBegin{IdempotencyBegin::Outcome::kStarted, record};
    return IdempotencyBegin{idempotency_outcome(record, fingerprint), record};
  });
}

Status PgStore::idem_finish(const std::string& scope, const std::string& key, std::int64_t status,
                            const Headers& headers, const std::string& body) {
  return write([&](PgConnection& c) -> Status {
    Params p;
    p.add_all(status, encode_headers(headers)).add_bytes(body).add_all(clock_.now_ms(), scope, key);
    HOOKD_TRY(rows, c.query("UPDATE idempotency_keys SET state = 'completed', "
                            "response_status = $1, response_headers = $2, response_body = $3, "
                            "updated_at = $4 WHERE scope = $5 AND key = $6 AND state = 'in_flight'",
                            p));
    return changed(rows, ErrorCode::kConflict, "idempotency key not in flight");
  });
}

Status PgStore::idem_mark_unknown(const std::string& scope, const std::string& key) {
  return write([&](PgConnection& c) -> Status {
    HOOKD_TRY(rows, c.query("UPDATE idempotency_keys SET state = 'unknown', updated_at = $1 "
                            "WHERE scope = $2 AND key = $3 AND state = 'in_flight'",
                            Params().add_all(clock_.now_ms(), scope, key)));
    return changed(rows, ErrorCode::kConflict, "idempotency key not in flight");
  });
}

Status PgStore::idem_release(const std::string& scope, const std::string& key) {
  return write([&](PgConnection& c) -> Status {
    HOOKD_TRY(rows, c.query("DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2",
                            Params().add_all(scope, key)));
    return changed(rows, ErrorCode::kNotFound, "idempotency key not found");
  });
}

Result<IdempotencyRecord> PgStore::idem_get(const std::string& scope, const std::string& key) {
  return read([&](PgConnection& c) { return load_key(c, scope, key); });
}

}  // namespace hookd::store::postgres
