// The outbound feed on PostgreSQL: pages of an endpoint's deliveries in commit order, and the
// endpoints' feed tokens (SHA-256 only).
//
// Commit order across nodes: every feed row carries feed_xid, the id of the transaction that
// wrote it. A page reads only rows with feed_xid below the xmin of the statement's snapshot
// (the oldest transaction still in flight): every transaction below it has committed or
// aborted, so no row can appear there later, and a cursor (feed_xid, id) never has a row
// land behind it. The feed lags by the longest write transaction in flight; `done` is false
// while rows above the bound are committed but held back.
#include <fmt/format.h>

#include <charconv>

#include "hookd/result.hpp"
#include "store/feed_cursor.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"

namespace hookd::store::postgres {
namespace {

struct Cursor {
  std::string xid = "0";
  std::string id;
};

// "" -> from the start; else "<feed_xid>.<delivery id>".
Result<Cursor> parse_cursor(const std::string& iterator) {
  if (iterator.empty()) return Cursor{};
  auto text = decode_feed_cursor(iterator);
  const auto dot = text ? text->find('.') : std::string::npos;
  if (dot != std::string::npos && dot > 0) {
    std::uint64_t xid = 0;
    const char* end = text->data() + dot;
    auto [ptr, ec] = std::from_chars(text->data(), end, xid);
    if (ec == std::errc() && ptr == end) return Cursor{text->substr(0, dot), text->substr(dot + 1)};
  }
  return fail(ErrorCode::kInvalidArgument, "iterator is not a feed iterator");
}

// One statement, so one snapshot: the page below the bound, whether the endpoint exists and
// whether committed rows wait above the bound. Always one row at least (the LEFT JOIN): with
// no page rows, the feed columns are NULL.
constexpr std::string_view kFeedPageSql =
    "WITH b AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS x), "
    "p AS (SELECT d.id, d.msg_id, d.status, d.feed_xid FROM b, deliveries d "
    "WHERE d.endpoint_id = $1 AND (d.feed_xid, d.id) > ($2::xid8, $3::text) AND d.feed_xid < b.x "
    "ORDER BY d.feed_xid, d.id LIMIT $4) "
    "SELECT {}, d.feed_xid::text, "
    "EXISTS (SELECT 1 FROM endpoints WHERE id = $1), "
    "EXISTS (SELECT 1 FROM b, deliveries h WHERE h.endpoint_id = $1 AND h.feed_xid >= b.x) "
    "FROM (SELECT 1) AS one LEFT JOIN (p AS d JOIN messages m ON m.id = d.msg_id) ON true "
    "ORDER BY d.feed_xid, d.id";

}  // namespace

Result<FeedPage> PgStore::feed_page(const std::string& endpoint_id, const std::string& iterator,
                                    int limit) {
  HOOKD_TRY(after, parse_cursor(iterator));
  limit = std::clamp(limit, 1, PageRequest::kMaxLimit);
  return read([&](PgConnection& c) -> Result<FeedPage> {
    HOOKD_TRY(rows, c.query(fmt::format(kFeedPageSql, kFeedColumns),
                            Params().add_all(endpoint_id, after.xid, after.id, limit + 1)));
    if (rows.size() == 0) return fail(ErrorCode::kInternal, "feed page returned nothing");
    constexpr int kXid = kFeedColumnCount;
    if (!rows.boolean(0, kXid + 1)) {
      return fail(ErrorCode::kNotFound, "endpoint " + endpoint_id + " not found");
    }
    FeedPage page;
    page.iterator = iterator;
    const bool held_back = rows.boolean(0, kXid + 2);
    const int n = rows.is_null(0, 0) ? 0 : rows.size();
    const int take = std::min(n, limit);
    for (int i = 0; i < take; ++i) page.data.push_back(read_feed_item(Row{rows, i}));
    if (take > 0) {
      page.iterator =
          encode_feed_cursor(rows.text(take - 1, kXid) + "." + page.data.back().delivery_id);
    }
    page.done = n <= limit && !held_back;
    return page;
  });
}

Status PgStore::set_feed_token(const std::string& app_id, const std::string& endpoint_id,
                               const std::string& token_sha256, bool replace,
                               std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Status {
    HOOKD_TRY(up, c.query("UPDATE endpoints SET feed_token_sha256 = $1 WHERE id = $2 AND "
                          "app_id = $3 AND ($4::boolean OR feed_token_sha256 IS NULL)",
                          Params().add_all(token_sha256, endpoint_id, app_id, replace)));
    if (up.affected() == 0) {
      HOOKD_TRY(ep, c.query("SELECT 1 FROM endpoints WHERE id = $1 AND app_id = $2",
                            Params().add_all(endpoint_id, app_id)));
      if (ep.size() == 0)
        return fail(ErrorCode::kNotFound, "endpoint " + endpoint_id + " not found");
      return fail(ErrorCode::kConflict, "the endpoint has a feed token already");
    }
    if (audit) {
      HOOKD_CHECK(append_audit_in_tx(c, completed_audit(*audit, endpoint_id), clock_.now_ms()));
    }
    return {};
  });
}

Result<std::string> PgStore::feed_token_endpoint(const std::string& token_sha256) {
  return read([&](PgConnection& c) -> Result<std::string> {
    HOOKD_TRY(rows, c.query("SELECT id FROM endpoints WHERE feed_token_sha256 = $1",
                            Params().add(token_sha256)));
    if (rows.size() == 0) return fail(ErrorCode::kNotFound, "feed token not found");
    return rows.text(0, 0);
  });
}

}  // namespace hookd::store::postgres
