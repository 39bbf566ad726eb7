// The idempotency gateway's keys on PostgreSQL (docs/proxy.md): the committer's batch
// (outcomes, then claims, in ONE durable transaction), the lease sweeps, reads, a person's
// resolution (audited in its transaction) and the purge.
// Claims from several nodes at once: INSERT ... ON CONFLICT DO NOTHING waits for a concurrent
// insert of the same key to commit or roll back, and an existing row is read FOR UPDATE before
// its state is looked at, so of concurrent claims of one key exactly one gets it; a batch takes
// its claims in (proxy, tenant, key) order, so two nodes' batches never deadlock on them. Items of
// a batch fail without a savepoint: an outcome's only item-level failures (kConflict, kNotFound)
// come from its one conditional statement matching no row, which is no SQL error and leaves the
// transaction usable; a claim has none.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <tuple>
#include <vector>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/postgres/pg_query.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"

namespace hookd::store::postgres {
namespace {

using To = ProxyKeyOutcome::To;

constexpr std::string_view kInsertClaimSql = R"sql(
INSERT INTO proxy_keys (id, proxy, tenant, key, fingerprint, state, owner, lease_until,
  created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, 'claimed', $6, $7, $8, $8)
ON CONFLICT (proxy, tenant, key) DO NOTHING
RETURNING {})sql";

// An expired completed / not_replayable record becomes a new claim under a new id (see the
// SQLite store). The row is locked by the caller.
constexpr std::string_view kRenewClaimSql = R"sql(
UPDATE proxy_keys SET id = $1, fingerprint = $2, state = 'claimed', owner = $3,
  lease_until = $4, status = NULL, headers = '[]', body = ''::bytea, body_size = 0,
  body_sha256 = '', created_at = $5, updated_at = $5, expires_at = 0, resolved_by = '',
  reason = ''
WHERE id = $6 AND state IN ('completed', 'not_replayable') AND expires_at <= $5
RETURNING {})sql";

constexpr std::string_view kLeaseLostSql = R"sql(
UPDATE proxy_keys SET state = 'unknown', updated_at = $1
WHERE id = $2 AND state = 'claimed' AND lease_until <= $1
RETURNING {})sql";

// Outcomes apply while the row is claimed by the owner, or unknown with that same owner.
constexpr std::string_view kAnswerSql = R"sql(
UPDATE proxy_keys SET state = $4, status = $5, headers = $6, body = $7, body_size = $8,
  expires_at = $9, body_sha256 = $10, lease_until = 0, updated_at = $1
WHERE id = $2 AND owner = $3 AND state IN ('claimed', 'unknown')
RETURNING {})sql";

constexpr std::string_view kUnknownSql = R"sql(
UPDATE proxy_keys SET state = 'unknown',
  updated_at = CASE WHEN state = 'unknown' THEN updated_at ELSE $1::bigint END
WHERE id = $2 AND owner = $3 AND state IN ('claimed', 'unknown')
RETURNING {})sql";

constexpr std::string_view kReleaseSql = R"sql(
DELETE FROM proxy_keys WHERE id = $1 AND owner = $2 AND state IN ('claimed', 'unknown')
RETURNING {})sql";

// A claim whose key vanished between its INSERT and its SELECT (released or purged by another
// transaction) tries again; this many times at most.
constexpr int kClaimRounds = 3;

std::optional<ProxyKey> first_key(const Rows& rows) {
  if (rows.size() == 0) return std::nullopt;
  return read_proxy_key(Row{rows, 0});
}

Result<ProxyKey> load_proxy_key(PgConnection& c, std::string_view where, const Params& params) {
  HOOKD_TRY(
      rows,
      c.query(fmt::format("SELECT {} FROM proxy_keys WHERE {}", kProxyKeyColumns, where), params));
  return single<ProxyKey>(rows, read_proxy_key, "proxy key");
}

// Why an outcome matched no row: it is gone, or in a state that forbids it.
Error refused(PgConnection& c, const ProxyKeyOutcome& o) {
  auto existing = load_proxy_key(c, "id = $1", Params().add(o.id));
  if (!existing) return existing.error();
  return Error{ErrorCode::kConflict,
               fmt::format("proxy key {} is {} ({}): not claimed by {}", o.id,
                           to_string(existing->state), existing->owner, o.owner)};
}

Result<Rows> apply_outcome(PgConnection& c, const ProxyKeyOutcome& o, Millis now) {
  if (o.to == To::kCompleted || o.to == To::kNotReplayable) {
    const bool completed = o.to == To::kCompleted;
    Params p;
    p.add_all(now, o.id, o.owner,
              to_string(completed ? ProxyKeyState::kCompleted : ProxyKeyState::kNotReplayable),
              o.status, encode_header_pairs(o.headers));
    p.add_bytes(completed ? std::string_view(o.body) : std::string_view());
    p.add_all(completed ? static_cast<std::int64_t>(o.body.size()) : o.body_size, now + o.ttl_ms,
              o.body_sha256);
    return c.query(fmt::format(kAnswerSql, kProxyKeyColumns), p);
  }
  if (o.to == To::kUnknown) {
    return c.query(fmt::format(kUnknownSql, kProxyKeyColumns),
                   Params().add_all(now, o.id, o.owner));
  }
  return c.query(fmt::format(kReleaseSql, kProxyKeyColumns), Params().add_all(o.id, o.owner));
}

Result<ProxyKey> proxy_outcome_in_tx(PgConnection& c, const ProxyKeyOutcome& o, Millis now) {
  HOOKD_TRY(rows, apply_outcome(c, o, now));
  auto changed = first_key(rows);
  if (!changed) return std::unexpected(refused(c, o));
  return std::move(*changed);
}

// What a claim does to the key's existing row, locked by the caller.
Result<ProxyClaimResult> claim_existing(PgConnection& c, IdGenerator& ids, const ProxyClaim& claim,
                                        ProxyKey existing, Millis now) {
  const bool answered = existing.state == ProxyKeyState::kCompleted ||
                        existing.state == ProxyKeyState::kNotReplayable;
  if (answered && existing.expires_at <= now) {
    HOOKD_TRY(rows, c.query(fmt::format(kRenewClaimSql, kProxyKeyColumns),
                            Params().add_all(ids.next(id_prefix::kProxyKey), claim.fingerprint,
                                             claim.owner, now + claim.lease_ms, now, existing.id)));
    auto renewed = first_key(rows);
    if (!renewed) return fail(ErrorCode::kInternal, "locked proxy key changed");
    return ProxyClaimResult{true, std::move(*renewed)};
  }
  if (existing.state == ProxyKeyState::kClaimed && existing.lease_until <= now) {
    HOOKD_TRY(rows, c.query(fmt::format(kLeaseLostSql, kProxyKeyColumns),
                            Params().add_all(now, existing.id)));
    auto lost = first_key(rows);
    if (!lost) return fail(ErrorCode::kInternal, "locked proxy key changed");
    return ProxyClaimResult{false, std::move(*lost)};
  }
  return ProxyClaimResult{false, std::move(existing)};
}

Result<ProxyClaimResult> proxy_claim_in_tx(PgConnection& c, IdGenerator& ids,
                                           const ProxyClaim& claim, Millis now) {
  for (int round = 0; round < kClaimRounds; ++round) {
    HOOKD_TRY(inserted, c.query(fmt::format(kInsertClaimSql, kProxyKeyColumns),
                                Params().add_all(ids.next(id_prefix::kProxyKey), claim.proxy,
                                                 claim.tenant, claim.key, claim.fingerprint,
                                                 claim.owner, now + claim.lease_ms, now)));
    if (auto mine = first_key(inserted)) return ProxyClaimResult{true, std::move(*mine)};
    HOOKD_TRY(locked, c.query(fmt::format("SELECT {} FROM proxy_keys WHERE proxy = $1 AND "
                                          "tenant = $2 AND key = $3 FOR UPDATE",
                                          kProxyKeyColumns),
                              Params().add_all(claim.proxy, claim.tenant, claim.key)));
    if (auto existing = first_key(locked)) {
      return claim_existing(c, ids, claim, std::move(*existing), now);
    }
  }
  return fail(ErrorCode::kUnavailable, "proxy key " + claim.key + " keeps changing; try again");
}

// The order a batch takes its keys in: by (proxy, tenant, key), the same on every node, so two
// committers claiming overlapping keys wait for each other instead of deadlocking (each
// deadlock costs a deadlock_timeout, 1 s by default, and a rerun). Stable: of two claims of
// one key in a batch the first still gets it.
std::vector<std::size_t> claim_order(const std::vector<ProxyClaim>& claims) {
  std::vector<std::size_t> order(claims.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) {
    return std::tie(claims[a].proxy, claims[a].tenant, claims[a].key) <
           std::tie(claims[b].proxy, claims[b].tenant, claims[b].key);
  });
  return order;
}

}  // namespace

Result<ProxyWriteBatchResult> PgStore::proxy_write_batch(const ProxyWriteBatch& batch) {
  return write([&](PgConnection& c) -> Result<ProxyWriteBatchResult> {
    const Millis now = clock_.now_ms();
    ProxyWriteBatchResult out;  // built afresh by every rerun of the transaction
    out.outcomes.reserve(batch.outcomes.size());
    for (const auto& o : batch.outcomes) {
      auto r = proxy_outcome_in_tx(c, o, now);
      if (!r && r.error().code != ErrorCode::kConflict && r.error().code != ErrorCode::kNotFound) {
        return std::unexpected(r.error());
      }
      out.outcomes.push_back(std::move(r));
    }
    out.claims.resize(batch.claims.size());
    for (std::size_t i : claim_order(batch.claims)) {
      HOOKD_TRY(r, proxy_claim_in_tx(c, ids_, batch.claims[i], now));
      out.claims[i] = std::move(r);
    }
    return out;
  });
}

Result<int> PgStore::proxy_orphan_owner(const std::string& owner) {
  return write([&](PgConnection& c) -> Result<int> {
    HOOKD_TRY(rows, c.query("UPDATE proxy_keys SET state = 'unknown', updated_at = $1 "
                            "WHERE state = 'claimed' AND owner = $2",
                            Params().add_all(clock_.now_ms(), owner)));
    return static_cast<int>(rows.affected());
  });
}

Result<int> PgStore::proxy_expire_leases() {
  return write([&](PgConnection& c) -> Result<int> {
    HOOKD_TRY(rows, c.query("UPDATE proxy_keys SET state = 'unknown', updated_at = $1 "
                            "WHERE state = 'claimed' AND lease_until <= $1",
                            Params().add(clock_.now_ms())));
    return static_cast<int>(rows.affected());
  });
}

Result<ProxyKey> PgStore::proxy_get(const std::string& id) {
  return read([&](PgConnection& c) { return load_proxy_key(c, "id = $1", Params().add(id)); });
}

Result<Page<ProxyKey>> PgStore::proxy_list(const ProxyKeyFilter& filter, const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<ProxyKey>> {
    PgQuery q(fmt::format("SELECT {} FROM proxy_keys", kProxyKeyColumns));
    filter_proxy_keys(q, filter);
    q.page(page);
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<ProxyKey>(rows, read_proxy_key), page,
                     [](const ProxyKey& k) { return k.id; });
  });
}

// As on SQLite: kCompleted stores the answer (body_sha256 stays empty), kNotExecuted deletes
// the row and returns it as it was, with the resolution's resolved_by and reason.
Result<ProxyKey> PgStore::proxy_resolve(const std::string& id, const ProxyResolution& resolution,
                                        std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<ProxyKey> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(before, load_proxy_key(c, "id = $1 FOR UPDATE", Params().add(id)));
    if (before.state != ProxyKeyState::kUnknown) {
      return fail(ErrorCode::kConflict, fmt::format("proxy key {} is {}, only unknown keys can be "
                                                    "resolved",
                                                    id, to_string(before.state)));
    }
    std::optional<ProxyKey> after;
    if (resolution.outcome == ProxyResolution::Outcome::kCompleted) {
      Params p;
      p.add_all(resolution.status, encode_header_pairs(resolution.headers));
      p.add_bytes(resolution.body);
      p.add_all(static_cast<std::int64_t>(resolution.body.size()), now + resolution.ttl_ms,
                resolution.resolved_by, resolution.reason, now, id);
      HOOKD_TRY(rows, c.query(fmt::format("UPDATE proxy_keys SET state = 'completed', "
                                          "status = $1, headers = $2, body = $3, body_size = $4, "
                                          "body_sha256 = '', expires_at = $5, lease_until = 0, "
                                          "resolved_by = $6, reason = $7, updated_at = $8 "
                                          "WHERE id = $9 RETURNING {}",
                                          kProxyKeyColumns),
                              p));
      after = first_key(rows);
      if (!after) return fail(ErrorCode::kInternal, "locked proxy key vanished");
    } else {
      HOOKD_CHECK(c.query("DELETE FROM proxy_keys WHERE id = $1", Params().add(id)));
    }
    if (audit) HOOKD_CHECK(append_audit_in_tx(c, proxy_key_audit(*audit, before, after), now));
    if (after) return std::move(*after);
    before.resolved_by = resolution.resolved_by;
    before.reason = resolution.reason;
    return before;
  });
}

Result<std::vector<ProxyUnknownStat>> PgStore::proxy_unknown_stats() {
  return read([&](PgConnection& c) -> Result<std::vector<ProxyUnknownStat>> {
    HOOKD_TRY(rows, c.query("SELECT proxy, COUNT(*), MIN(updated_at) FROM proxy_keys "
                            "WHERE state = 'unknown' GROUP BY proxy ORDER BY proxy"));
    return collect<ProxyUnknownStat>(rows, [](const Row& r) {
      return ProxyUnknownStat{r.text(0), r.int64(1), r.int64(2)};
    });
  });
}

}  // namespace hookd::store::postgres
