// The outbound feed (docs/reconciliation.md): GET /api/v1/hookd/feed/{endpoint_id} pages
// every message the endpoint was matched to, oldest first in commit order; opened by an API
// token or by the endpoint's own feed token (fdt_..., Api::Impl::authenticate). The feed
// token is shown once, when it is created (first GET …/feed-token) or rotated; the store
// keeps only its SHA-256. Both changes are audited.
#include "api/api_impl.hpp"
#include "api/audit_entries.hpp"
#include "hookd/encoding.hpp"
#include "wire/json.hpp"

namespace hookd::api {

Reply Api::Impl::get_feed(Call& call) {
  auto page = page_of(call, /*newest_first=*/false);
  if (!page) return std::unexpected(page.error());
  const auto& endpoint_id = call.param("endpoint_id");
  auto feed = deps_.store.feed_page(endpoint_id, page->iterator.value_or(""), page->limit);
  if (!feed) {
    if (feed.error().code == ErrorCode::kInvalidArgument) {
      return std::unexpected(
          query_validation_error({{"iterator", "is not an iterator of this feed"}}));
    }
    return std::unexpected(from_store_error(feed.error(), "endpoint '" + endpoint_id + "'"));
  }
  return json_response(200, wire::feed_json(feed->data, feed->iterator, feed->done));
}

Reply Api::Impl::issue_feed_token(Call& call, bool replace) {
  auto found = app_endpoint_of(call);
  if (!found) return std::unexpected(found.error());
  const auto& [app, ep] = *found;
  std::array<std::uint8_t, 24> bytes{};
  deps_.random.fill(bytes);
  const std::string token = std::string(kFeedTokenPrefix) + hex_encode(bytes);
  const char* action = replace ? "endpoint.feed_token.rotate" : "endpoint.feed_token.create";
  auto audit = audit_entry(call, action, "endpoint", ep.id);  // never the token itself
  auto set = deps_.store.set_feed_token(app.id, ep.id, sha256_hex(token), replace, audit);
  if (!set) {
    if (set.error().code == ErrorCode::kConflict) {
      return std::unexpected(
          api_error(409, "conflict",
                    "The endpoint's feed token was issued already and is "
                    "shown only once: POST .../feed-token/rotate for a new one"));
    }
    return std::unexpected(from_store_error(set.error(), "endpoint"));
  }
  return json_response(200, wire::dump(nlohmann::json{{"token", token}}));
}

Reply Api::Impl::get_feed_token(Call& call) { return issue_feed_token(call, false); }

Reply Api::Impl::rotate_feed_token(Call& call) { return issue_feed_token(call, true); }

}  // namespace hookd::api
