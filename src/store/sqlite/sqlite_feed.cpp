// The outbound feed on SQLite: pages of an endpoint's deliveries by feed_seq (taken from the
// feed counter in the publishing transaction; one writer, so that is commit order), and the
// endpoints' feed tokens (SHA-256 only).
#include <fmt/format.h>

#include <charconv>

#include "hookd/result.hpp"
#include "store/feed_cursor.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

// "" -> 0 (from the start); else the decoded feed_seq.
Result<std::int64_t> parse_cursor(const std::string& iterator) {
  if (iterator.empty()) return 0;
  auto text = decode_feed_cursor(iterator);
  std::int64_t seq = -1;
  if (text && !text->empty()) {
    const auto* end = text->data() + text->size();
    auto [ptr, ec] = std::from_chars(text->data(), end, seq);
    if (ec != std::errc() || ptr != end) seq = -1;
  }
  if (seq < 0) return fail(ErrorCode::kInvalidArgument, "iterator is not a feed iterator");
  return seq;
}

Status require_endpoint(Connection& c, const std::string& endpoint_id) {
  HOOKD_TRY(q, c.prepare("SELECT 1 FROM endpoints WHERE id = ?"));
  HOOKD_TRY(found, q.bind_all(endpoint_id).step());
  if (!found) return fail(ErrorCode::kNotFound, "endpoint " + endpoint_id + " not found");
  return {};
}

}  // namespace

Result<FeedPage> SqliteStore::feed_page(const std::string& endpoint_id, const std::string& iterator,
                                        int limit) {
  HOOKD_TRY(after, parse_cursor(iterator));
  limit = std::clamp(limit, 1, PageRequest::kMaxLimit);
  return read([&](Connection& c) -> Result<FeedPage> {
    HOOKD_CHECK(require_endpoint(c, endpoint_id));
    HOOKD_TRY(q, c.prepare(fmt::format("SELECT {}, d.feed_seq FROM deliveries d "
                                       "JOIN messages m ON m.id = d.msg_id "
                                       "WHERE d.endpoint_id = ? AND d.feed_seq > ? "
                                       "ORDER BY d.feed_seq LIMIT ?",
                                       kFeedColumns)));
    q.bind_all(endpoint_id, after, limit + 1);
    FeedPage page;
    std::int64_t last = after;
    for (;;) {
      HOOKD_TRY(row, q.step());
      if (!row) break;
      if (static_cast<int>(page.data.size()) == limit) {
        page.done = false;  // the extra row: more to read
        break;
      }
      page.data.push_back(read_feed_item(q));
      last = q.int64(kFeedColumnCount);
    }
    page.iterator = last == after ? iterator : encode_feed_cursor(std::to_string(last));
    return page;
  });
}

Status SqliteStore::set_feed_token(const std::string& app_id, const std::string& endpoint_id,
                                   const std::string& token_sha256, bool replace,
                                   std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Status {
    HOOKD_TRY(q, c.prepare("UPDATE endpoints SET feed_token_sha256 = ?1 "
                           "WHERE id = ?2 AND app_id = ?3 AND (?4 OR feed_token_sha256 IS NULL)"));
    HOOKD_CHECK(q.bind_all(token_sha256, endpoint_id, app_id, replace).run());
    if (c.changes() == 0) {
      HOOKD_TRY(ep, c.prepare("SELECT 1 FROM endpoints WHERE id = ? AND app_id = ?"));
      HOOKD_TRY(found, ep.bind_all(endpoint_id, app_id).step());
      if (!found) return fail(ErrorCode::kNotFound, "endpoint " + endpoint_id + " not found");
      return fail(ErrorCode::kConflict, "the endpoint has a feed token already");
    }
    if (audit) {
      HOOKD_CHECK(append_audit_in_tx(c, completed_audit(*audit, endpoint_id), clock_.now_ms()));
    }
    return {};
  });
}

Result<std::string> SqliteStore::feed_token_endpoint(const std::string& token_sha256) {
  return read([&](Connection& c) -> Result<std::string> {
    HOOKD_TRY(q, c.prepare("SELECT id FROM endpoints WHERE feed_token_sha256 = ?"));
    q.bind_all(token_sha256);
    return single<std::string>(
        q, [](const Stmt& s) { return s.text(0); }, "feed token");
  });
}

}  // namespace hookd::store::sqlite
