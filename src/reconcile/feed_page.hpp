// FeedPage: the pure side of the feed walk (docs/reconciliation.md "The inbound reconciler"):
// a page URL from the feed URL and the cursor, a feed page's JSON read through the configured
// pointers into items (event + missing difference), its next cursor, done flag and newest
// item time. No I/O. Thread-safety: stateless functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "inbound/source.hpp"
#include "reconcile/reconcile_options.hpp"
#include "store/reconcile.hpp"

namespace hookd::reconcile {

// What one feed page said.
struct FeedPage {
  std::vector<store::ReconcileItem> items;
  std::optional<std::string> next_cursor;  // nullopt: the page had none
  bool done = false;
  std::optional<std::int64_t> newest_item_ms;  // the newest item_time on the page
};

// Where a run's walk starts.
struct WalkStart {
  std::string cursor;  // the first page's cursor ("" = none)
  std::string since;   // since_param's value for every page of the run ("" = not sent)
};

// since_param unset: the stored cursor. Set: no cursor, and since = watermark - overlap in
// since_format (nothing while there is no watermark: the feed's start).
WalkStart walk_start(const ReconcileOptions& options, const std::string& stored_cursor,
                     std::optional<std::int64_t> watermark_ms);

// feed_url with `since_param=<since>` and `cursor_param=<cursor>` (names and values
// percent-encoded) added, each only when not empty.
std::string page_url(const ReconcileOptions& options, const std::string& cursor,
                     const std::string& since = "");

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string url_encode(std::string_view text);

// RFC 3339 ("2024-05-01T10:00:00Z", fraction and offset allowed) or unix seconds (a number or
// a decimal string) -> unix milliseconds; nullopt otherwise.
std::optional<std::int64_t> parse_item_time(std::string_view text);

// Reads the page body. Items' differences carry no evidence: the caller passes the page's
// once (ReconcilePage::evidence), and the store gives it to each. kInvalidArgument
// when the body is not JSON (or too deep), `items` is not an array, or an item has no id /
// body at its pointer (the run then stops with that error; the cursor stays).
Result<FeedPage> read_feed_page(const ReconcileOptions& options, const inbound::Source& source,
                                std::string_view body);

}  // namespace hookd::reconcile
