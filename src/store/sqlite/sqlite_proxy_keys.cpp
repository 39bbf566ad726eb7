// The idempotency gateway's keys on SQLite (docs/proxy.md): the committer's batch (outcomes,
// then claims, in ONE durable write transaction), the lease sweeps, reads, a person's
// resolution (audited in its transaction) and the purge.
// Items of a batch fail without a savepoint: an outcome's only item-level failures (kConflict,
// kNotFound) come from its one conditional statement matching no row, i.e. before it wrote
// anything; a claim has none. Any other error fails the batch, and nothing is kept.
#include <fmt/format.h>

#include <optional>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

using To = ProxyKeyOutcome::To;

// A new claim: ON CONFLICT DO NOTHING, so an existing row comes back as no row.
constexpr std::string_view kInsertClaimSql = R"sql(
INSERT INTO proxy_keys (id, proxy, tenant, key, fingerprint, state, owner, lease_until,
  created_at, updated_at)
VALUES (?1, ?2, ?3, ?4, ?5, 'claimed', ?6, ?7, ?8, ?8)
ON CONFLICT (proxy, tenant, key) DO NOTHING
RETURNING {})sql";

// An expired completed / not_replayable record becomes a new claim under a new id: the new
// operation is not the old one (an outcome or resolution naming the old id finds nothing).
constexpr std::string_view kRenewClaimSql = R"sql(
UPDATE proxy_keys SET id = ?1, fingerprint = ?2, state = 'claimed', owner = ?3,
  lease_until = ?4, status = NULL, headers = '[]', body = x'', body_size = 0,
  body_sha256 = '', created_at = ?5, updated_at = ?5, expires_at = 0, resolved_by = '',
  reason = ''
WHERE id = ?6 AND state IN ('completed', 'not_replayable') AND expires_at <= ?5
RETURNING {})sql";

// A claim whose owner's lease ran out: it may have sent before it died.
constexpr std::string_view kLeaseLostSql = R"sql(
UPDATE proxy_keys SET state = 'unknown', updated_at = ?1
WHERE id = ?2 AND state = 'claimed' AND lease_until <= ?1
RETURNING {})sql";

// Outcomes apply while the row is claimed by the owner, or unknown with that same owner.
constexpr std::string_view kOwnedSql = "id = ?2 AND owner = ?3 AND state IN ('claimed', 'unknown')";

// kCompleted / kNotReplayable: the answer, expiring at ?9. The lease is over.
constexpr std::string_view kAnswerSql = R"sql(
UPDATE proxy_keys SET state = ?4, status = ?5, headers = ?6, body = ?7, body_size = ?8,
  body_sha256 = ?10, expires_at = ?9, lease_until = 0, updated_at = ?1
WHERE {} RETURNING {})sql";

// kUnknown: the lease is kept (when the owner was last known alive); updated_at says since
// when the outcome is unknown, so it is not moved when the row already was unknown.
constexpr std::string_view kUnknownSql = R"sql(
UPDATE proxy_keys SET state = 'unknown',
  updated_at = CASE WHEN state = 'unknown' THEN updated_at ELSE ?1 END
WHERE {} RETURNING {})sql";

constexpr std::string_view kReleaseSql = "DELETE FROM proxy_keys WHERE {} RETURNING {}";

// The one row a RETURNING statement gave back, if any (the statement is run to its end).
Result<std::optional<ProxyKey>> returned_key(Stmt& s) {
  HOOKD_TRY(found, s.step());
  if (!found) return std::optional<ProxyKey>{};
  ProxyKey k = read_proxy_key(s);
  HOOKD_CHECK(s.run());
  return std::optional<ProxyKey>(std::move(k));
}

Result<ProxyKey> load_proxy_key(Connection& c, std::string_view where, const std::string& a,
                                const std::optional<std::string>& b = std::nullopt,
                                const std::optional<std::string>& d = std::nullopt) {
  HOOKD_TRY(q,
            c.prepare(fmt::format("SELECT {} FROM proxy_keys WHERE {}", kProxyKeyColumns, where)));
  q.bind(1, a);
  if (b) q.bind(2, *b);
  if (d) q.bind(3, *d);
  return single<ProxyKey>(q, read_proxy_key, "proxy key");
}

// Why an outcome or resolution matched no row: it is gone, or in a state that forbids it.
Error refused(Connection& c, const std::string& id, std::string_view what) {
  auto existing = load_proxy_key(c, "id = ?", id);
  if (!existing) return existing.error();
  return Error{ErrorCode::kConflict,
               fmt::format("proxy key {} is {} ({}): {}", id, to_string(existing->state),
                           existing->owner, what)};
}

Result<ProxyKey> proxy_outcome_in_tx(Connection& c, const ProxyKeyOutcome& o, Millis now) {
  const std::string owned(kOwnedSql);
  std::optional<ProxyKey> changed;
  if (o.to == To::kCompleted || o.to == To::kNotReplayable) {
    const bool completed = o.to == To::kCompleted;
    HOOKD_TRY(up, c.prepare(fmt::format(kAnswerSql, owned, kProxyKeyColumns)));
    up.bind_all(now, o.id, o.owner,
                to_string(completed ? ProxyKeyState::kCompleted : ProxyKeyState::kNotReplayable),
                o.status, encode_header_pairs(o.headers));
    up.bind_blob(7, completed ? std::string_view(o.body) : std::string_view());
    up.bind(8, completed ? static_cast<std::int64_t>(o.body.size()) : o.body_size);
    up.bind(9, now + o.ttl_ms).bind(10, o.body_sha256);
    HOOKD_TRY(row, returned_key(up));
    changed = std::move(row);
  } else if (o.to == To::kUnknown) {
    HOOKD_TRY(up, c.prepare(fmt::format(kUnknownSql, owned, kProxyKeyColumns)));
    up.bind_all(now, o.id, o.owner);
    HOOKD_TRY(row, returned_key(up));
    changed = std::move(row);
  } else {
    HOOKD_TRY(del, c.prepare(fmt::format(kReleaseSql, owned, kProxyKeyColumns)));
    del.bind(2, o.id).bind(3, o.owner);  // the owner check's numbers (no ?1 here)
    HOOKD_TRY(row, returned_key(del));
    changed = std::move(row);
  }
  if (!changed) return std::unexpected(refused(c, o.id, "not claimed by " + o.owner));
  return std::move(*changed);
}

Result<ProxyClaimResult> proxy_claim_in_tx(Connection& c, IdGenerator& ids, const ProxyClaim& claim,
                                           Millis now) {
  const Millis lease_until = now + claim.lease_ms;
  HOOKD_TRY(ins, c.prepare(fmt::format(kInsertClaimSql, kProxyKeyColumns)));
  ins.bind_all(ids.next(id_prefix::kProxyKey), claim.proxy, claim.tenant, claim.key,
               claim.fingerprint, claim.owner, lease_until, now);
  HOOKD_TRY(inserted, returned_key(ins));
  if (inserted) return ProxyClaimResult{true, std::move(*inserted)};

  HOOKD_TRY(existing, load_proxy_key(c, "proxy = ?1 AND tenant = ?2 AND key = ?3", claim.proxy,
                                     claim.tenant, claim.key));
  const bool answered = existing.state == ProxyKeyState::kCompleted ||
                        existing.state == ProxyKeyState::kNotReplayable;
  if (answered && existing.expires_at <= now) {
    HOOKD_TRY(up, c.prepare(fmt::format(kRenewClaimSql, kProxyKeyColumns)));
    up.bind_all(ids.next(id_prefix::kProxyKey), claim.fingerprint, claim.owner, lease_until, now,
                existing.id);
    HOOKD_TRY(renewed, returned_key(up));
    if (!renewed) return fail(ErrorCode::kInternal, "expired proxy key changed under the writer");
    return ProxyClaimResult{true, std::move(*renewed)};
  }
  if (existing.state == ProxyKeyState::kClaimed && existing.lease_until <= now) {
    HOOKD_TRY(up, c.prepare(fmt::format(kLeaseLostSql, kProxyKeyColumns)));
    up.bind_all(now, existing.id);
    HOOKD_TRY(lost, returned_key(up));
    if (!lost) return fail(ErrorCode::kInternal, "claimed proxy key changed under the writer");
    return ProxyClaimResult{false, std::move(*lost)};
  }
  return ProxyClaimResult{false, std::move(existing)};
}

}  // namespace

Result<ProxyWriteBatchResult> SqliteStore::proxy_write_batch(const ProxyWriteBatch& batch) {
  return write([&](Connection& c) -> Result<ProxyWriteBatchResult> {
    const Millis now = clock_.now_ms();
    ProxyWriteBatchResult out;
    out.outcomes.reserve(batch.outcomes.size());
    for (const auto& o : batch.outcomes) {
      auto r = proxy_outcome_in_tx(c, o, now);
      if (!r && r.error().code != ErrorCode::kConflict && r.error().code != ErrorCode::kNotFound) {
        return std::unexpected(r.error());
      }
      out.outcomes.push_back(std::move(r));
    }
    out.claims.reserve(batch.claims.size());
    for (const auto& claim : batch.claims) {
      HOOKD_TRY(r, proxy_claim_in_tx(c, ids_, claim, now));
      out.claims.emplace_back(std::move(r));
    }
    return out;
  });
}

Result<int> SqliteStore::proxy_orphan_owner(const std::string& owner) {
  return write([&](Connection& c) -> Result<int> {
    HOOKD_TRY(up, c.prepare("UPDATE proxy_keys SET state = 'unknown', updated_at = ? "
                            "WHERE state = 'claimed' AND owner = ?"));
    HOOKD_CHECK(up.bind_all(clock_.now_ms(), owner).run());
    return static_cast<int>(c.changes());
  });
}

Result<int> SqliteStore::proxy_expire_leases() {
  return write([&](Connection& c) -> Result<int> {
    HOOKD_TRY(up, c.prepare("UPDATE proxy_keys SET state = 'unknown', updated_at = ?1 "
                            "WHERE state = 'claimed' AND lease_until <= ?1"));
    HOOKD_CHECK(up.bind_all(clock_.now_ms()).run());
    return static_cast<int>(c.changes());
  });
}

Result<ProxyKey> SqliteStore::proxy_get(const std::string& id) {
  return read([&](Connection& c) { return load_proxy_key(c, "id = ?", id); });
}

Result<Page<ProxyKey>> SqliteStore::proxy_list(const ProxyKeyFilter& filter,
                                               const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<ProxyKey>> {
    Query q(fmt::format("SELECT {} FROM proxy_keys", kProxyKeyColumns));
    filter_proxy_keys(q, filter);
    q.page(page);
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<ProxyKey>(stmt, read_proxy_key));
    return make_page(std::move(rows), page, [](const ProxyKey& k) { return k.id; });
  });
}

// kCompleted: the answer is stored (body_sha256 stays empty: a resolution brings none) and
// replayed until now + ttl. kNotExecuted: the row is deleted; the result is the row as it was,
// with the resolution's resolved_by and reason.
Result<ProxyKey> SqliteStore::proxy_resolve(const std::string& id,
                                            const ProxyResolution& resolution,
                                            std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<ProxyKey> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(before, load_proxy_key(c, "id = ?", id));
    if (before.state != ProxyKeyState::kUnknown) {
      return fail(ErrorCode::kConflict, fmt::format("proxy key {} is {}, only unknown keys can be "
                                                    "resolved",
                                                    id, to_string(before.state)));
    }
    std::optional<ProxyKey> after;
    if (resolution.outcome == ProxyResolution::Outcome::kCompleted) {
      HOOKD_TRY(up, c.prepare(fmt::format(
                        "UPDATE proxy_keys SET state = 'completed', status = ?1, headers = ?2, "
                        "body = ?3, body_size = ?4, body_sha256 = '', expires_at = ?5, "
                        "lease_until = 0, resolved_by = ?6, reason = ?7, updated_at = ?8 "
                        "WHERE id = ?9 AND state = 'unknown' RETURNING {}",
                        kProxyKeyColumns)));
      up.bind_all(resolution.status, encode_header_pairs(resolution.headers));
      up.bind_blob(3, resolution.body);
      up.bind(4, static_cast<std::int64_t>(resolution.body.size()))
          .bind(5, now + resolution.ttl_ms)
          .bind(6, resolution.resolved_by)
          .bind(7, resolution.reason)
          .bind(8, now)
          .bind(9, id);
      HOOKD_TRY(row, returned_key(up));
      if (!row) return fail(ErrorCode::kInternal, "unknown proxy key changed under the writer");
      after = std::move(row);
    } else {
      HOOKD_TRY(del, c.prepare("DELETE FROM proxy_keys WHERE id = ? AND state = 'unknown'"));
      HOOKD_CHECK(del.bind_all(id).run());
    }
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, proxy_key_audit(*audit, before, after), now));
    if (after) return std::move(*after);
    before.resolved_by = resolution.resolved_by;
    before.reason = resolution.reason;
    return before;
  });
}

Result<std::vector<ProxyUnknownStat>> SqliteStore::proxy_unknown_stats() {
  return read([&](Connection& c) -> Result<std::vector<ProxyUnknownStat>> {
    HOOKD_TRY(q, c.prepare("SELECT proxy, COUNT(*), MIN(updated_at) FROM proxy_keys "
                           "WHERE state = 'unknown' GROUP BY proxy ORDER BY proxy"));
    return collect<ProxyUnknownStat>(q, [](const Stmt& s) {
      return ProxyUnknownStat{s.text(0), s.int64(1), s.int64(2)};
    });
  });
}

}  // namespace hookd::store::sqlite
