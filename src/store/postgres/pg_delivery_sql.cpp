#include "store/postgres/pg_delivery_sql.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "hookd/ids.hpp"
#include "store/postgres/pg_arrays.hpp"
#include "store/postgres/pg_rows.hpp"

namespace hookd::store::postgres {
namespace {

// Due, not leased (or lease expired), endpoint enabled, and for FIFO endpoints no open
// delivery with the same ordering key and a lower sequence. SKIP LOCKED: rows another node
// is claiming right now are left to it instead of waited for. The head's lease is the
// ordering key's lease: while it is open, the key's later rows stay unclaimable everywhere.
// {0}: what the statement returns; {1}: FROM/JOIN after the claimed rows (`claimed`).
constexpr std::string_view kClaimSql = R"sql(
WITH due AS (
  SELECT d.id FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
  WHERE d.status IN ('pending', 'delivering') AND d.next_attempt_at <= $3
    AND (d.lease_until IS NULL OR d.lease_until <= $3)
    AND NOT e.disabled
    AND (NOT e.fifo OR d.ordering_key IS NULL OR NOT EXISTS (
      SELECT 1 FROM deliveries o
      WHERE o.endpoint_id = d.endpoint_id AND o.ordering_key = d.ordering_key
        AND o.status IN ('pending', 'delivering') AND o.sequence < d.sequence))
  ORDER BY d.next_attempt_at, d.id LIMIT $4
  FOR UPDATE OF d SKIP LOCKED),
claimed AS (
  UPDATE deliveries SET status = 'delivering', lease_owner = $1, lease_until = $2,
    next_attempt_at = $2, updated_at = $3
  FROM due WHERE deliveries.id = due.id
  RETURNING {0})
SELECT {1})sql";

// $1..$7: one array element per report; $8 now; $9..$19: the attempt rows' own fields,
// joined to the rows the UPDATE returned (a lost lease writes no attempt); an attempt's
// trigger is its delivery's (migration 11: "manual" for a resend). The lease guard
// is written `(...) IS TRUE` so that no index serves it and only the primary key drives the
// join (with stale statistics the planner otherwise scans every 'delivering' row).
constexpr std::string_view kRecordSql = R"sql(
WITH done AS (
  UPDATE deliveries d SET status = r.status, attempts = d.attempts + 1,
    next_attempt_at = COALESCE(r.next_at, r.attempted_at), lease_owner = NULL,
    lease_until = NULL, first_attempt_at = COALESCE(d.first_attempt_at, r.attempted_at),
    last_attempt_at = r.attempted_at, last_error = r.error, last_response_status = r.code,
    updated_at = $8
  FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[],
              $7::bigint[]) AS r(id, owner, status, next_at, attempted_at, error, code)
  WHERE d.id = r.id AND (d.lease_owner = r.owner AND d.status = 'delivering') IS TRUE
  RETURNING {0}),
logged AS (
  INSERT INTO attempts ({1})
  SELECT x.id, done.id, done.msg_id, done.endpoint_id, done.app_id, x.attempted_at,
    x.response_status, x.response_headers, x.response_body, x.duration_ms, x.error,
    x.success, COALESCE((SELECT t.trigger FROM deliveries t WHERE t.id = done.id), x.trigger),
    x.url
  FROM done JOIN unnest($9::text[], $10::text[], $11::bigint[], $12::bigint[], $13::text[],
                        $14::bytea[], $15::bigint[], $16::text[], $17::boolean[],
                        $18::text[], $19::text[])
    AS x(delivery_id, id, attempted_at, response_status, response_headers, response_body,
         duration_ms, error, success, trigger, url) ON x.delivery_id = done.id)
SELECT {2} FROM done)sql";

}  // namespace

// Each claimed delivery is followed by its endpoint's revision, read in the statement's
// snapshot: every change committed before the claimed message's publish is in it.
constexpr std::string_view kWithEndpointRevision = "LEFT JOIN endpoints e ON e.id = c.endpoint_id";

const std::string& claim_sql() {
  static const std::string sql =
      fmt::format(kClaimSql, qualify(kDeliveryColumns, "deliveries"),
                  fmt::format("{}, e.revision FROM claimed c {}", qualify(kDeliveryColumns, "c"),
                              kWithEndpointRevision));
  return sql;
}

const std::string& claim_with_messages_sql() {
  static const std::string sql = fmt::format(
      kClaimSql, qualify(kDeliveryColumns, "deliveries"),
      fmt::format("{}, e.revision, {} FROM claimed c {} LEFT JOIN messages m ON m.id = c.msg_id",
                  qualify(kDeliveryColumns, "c"), qualify(kMessageColumns, "m"),
                  kWithEndpointRevision));
  return sql;
}

Params claim_params(const ClaimRequest& req, Millis now) {
  return Params().add_all(req.lease_owner, now + req.lease_ms, now, std::max(req.limit, 0));
}

std::vector<Delivery> claimed_deliveries(const Rows& rows) {
  auto out = collect<Delivery>(rows, read_claimed_delivery);
  std::sort(out.begin(), out.end(), oldest_due_first);
  return out;
}

void read_claimed_with_messages(const Rows& rows, std::vector<Delivery>& claimed,
                                std::vector<Result<Message>>& messages) {
  std::vector<int> order(static_cast<std::size_t>(rows.size()));
  std::vector<Delivery> deliveries;
  deliveries.reserve(order.size());
  for (int i = 0; i < rows.size(); ++i) {
    deliveries.push_back(read_claimed_delivery(Row{rows, i}));
    order[static_cast<std::size_t>(i)] = i;
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return oldest_due_first(deliveries[static_cast<std::size_t>(a)],
                            deliveries[static_cast<std::size_t>(b)]);
  });
  claimed.reserve(order.size());
  messages.reserve(order.size());
  for (int i : order) {
    const Row message_row{rows, i, kDeliveryColumnCount + 1};  // after the revision
    if (message_row.is_null(0)) {
      messages.push_back(fail(ErrorCode::kNotFound, "message not found"));
    } else {
      messages.push_back(read_message(message_row));
    }
    claimed.push_back(std::move(deliveries[static_cast<std::size_t>(i)]));
  }
}

Attempt attempt_of(const AttemptReport& report, Millis now) {
  Attempt a = report.attempt;
  if (a.attempted_at == 0) a.attempted_at = now;
  a.success = report.next == AttemptReport::Next::kDelivered;
  return a;
}

FirstMentions<AttemptReport> first_reports(const std::vector<AttemptReport>& reports) {
  return first_mentions(reports,
                        [](const AttemptReport& r) -> std::string_view { return r.delivery_id; });
}

std::vector<Result<Delivery>> with_repeats(std::vector<Result<Delivery>> recorded,
                                           const std::vector<AttemptReport>& reports,
                                           const std::vector<bool>& repeated) {
  std::vector<Result<Delivery>> out;
  out.reserve(reports.size());
  std::size_t next_first = 0;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (repeated[i]) {
      out.push_back(
          fail(ErrorCode::kConflict, "lease on delivery " + reports[i].delivery_id + " lost"));
    } else {
      out.push_back(std::move(recorded[next_first++]));
    }
  }
  return out;
}

const std::string& record_with_attempts_sql() {
  static const std::string sql =
      fmt::format(kRecordSql, qualify(kDeliveryColumns, "d"), kAttemptColumns, kDeliveryColumns);
  return sql;
}

Params record_with_attempts_params(const std::vector<AttemptReport>& reports, Millis now,
                                   IdGenerator& ids) {
  std::vector<ArrayLiteral> update(7);
  std::vector<ArrayLiteral> logged(11);
  for (const auto& report : reports) {
    const Attempt a = attempt_of(report, now);
    const bool retry = report.next == AttemptReport::Next::kRetry;
    update[0].add(report.delivery_id);
    update[1].add(report.lease_owner);
    update[2].add(to_string(status_after(report.next)));
    update[3].add(retry ? std::optional<Millis>(report.next_attempt_at) : std::nullopt);
    update[4].add(a.attempted_at);
    update[5].add(last_error_of(a));
    update[6].add(a.response_status);
    logged[0].add(report.delivery_id);
    logged[1].add(ids.next(id_prefix::kAttempt));
    logged[2].add(a.attempted_at);
    logged[3].add(a.response_status);
    logged[4].add(encode_headers(a.response_headers));
    logged[5].add_bytes(a.response_body);
    logged[6].add(a.duration_ms);
    logged[7].add(a.error);
    logged[8].add(a.success);
    logged[9].add(to_string(a.trigger));
    logged[10].add(a.url);
  }
  Params p;
  for (const auto& col : update) p.add(col.str());
  p.add(now);
  for (const auto& col : logged) p.add(col.str());
  return p;
}

std::vector<Result<Delivery>> recorded_deliveries(const Rows& rows,
                                                  const std::vector<AttemptReport>& reports) {
  std::unordered_map<std::string, Delivery> updated;
  for (auto& d : collect<Delivery>(rows, read_delivery)) updated.emplace(d.id, std::move(d));
  std::vector<Result<Delivery>> out;
  out.reserve(reports.size());
  for (const auto& report : reports) {
    auto found = updated.find(report.delivery_id);
    if (found == updated.end()) {
      out.push_back(
          fail(ErrorCode::kConflict, "lease on delivery " + report.delivery_id + " lost"));
    } else {
      out.push_back(found->second);
    }
  }
  return out;
}

}  // namespace hookd::store::postgres
