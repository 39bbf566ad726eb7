// Mapping between PostgreSQL rows (text result format) and the model structs. The column
// lists and the JSON encoding of lists/header maps are the SQLite backend's (same schema,
// same names), so both backends store the same documents. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "store/model.hpp"
#include "store/postgres/pg_connection.hpp"
#include "store/sqlite/rows.hpp"

namespace hookd::store::postgres {

using sqlite::completed_audit;
using sqlite::decode_headers;
using sqlite::decode_list;
using sqlite::delivery_state_json;
using sqlite::encode_headers;
using sqlite::encode_list;
using sqlite::endpoint_disabled_json;
using sqlite::kAppColumns;
using sqlite::kAttemptColumns;
using sqlite::kAuditColumns;
using sqlite::kDeliveryColumnCount;
using sqlite::kDeliveryColumns;
using sqlite::kEndpointColumns;
using sqlite::kEventTypeColumns;
using sqlite::kIdemColumns;
using sqlite::kInboxColumns;
using sqlite::kMessageColumns;
using sqlite::recover_state_json;
using sqlite::resend_state_json;

Application read_application(const Row& r);
EventType read_event_type(const Row& r);
Endpoint read_endpoint(const Row& r);
Message read_message(const Row& r);
Delivery read_delivery(const Row& r);
Attempt read_attempt(const Row& r);
InboxEvent read_inbox(const Row& r);
IdempotencyRecord read_idempotency(const Row& r);
AuditEntry read_audit(const Row& r);

// "t.a, t.b, ..." from "a, b, ...": a column list for statements where names are ambiguous.
std::string qualify(std::string_view columns, std::string_view table);

// "$1, $2, ..., $n" for INSERT ... VALUES.
std::string placeholders(int n, int first = 1);

template <class T, class Reader>
std::vector<T> collect(const Rows& rows, Reader reader) {
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.push_back(reader(Row{rows, i}));
  return out;
}

// The first row, or kNotFound (with `what`).
template <class T, class Reader>
Result<T> single(const Rows& rows, Reader reader, std::string_view what) {
  if (rows.size() == 0) return fail(ErrorCode::kNotFound, std::string(what) + " not found");
  return reader(Row{rows, 0});
}

}  // namespace hookd::store::postgres
