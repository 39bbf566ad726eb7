// The outbound feed's iterator as the API hands it out: the engine's own cursor text (SQLite
// "<feed_seq>", PostgreSQL "<feed_xid>.<delivery id>") in unpadded base64url, so clients
// treat it as opaque and it is safe in a query string. Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hookd::store {

std::string encode_feed_cursor(std::string_view cursor);
// nullopt: not base64url text this encoder could have made.
std::optional<std::string> decode_feed_cursor(std::string_view iterator);

}  // namespace hookd::store
