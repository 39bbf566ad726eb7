// What was attempted, seen from the message or from the endpoint (Svix listAttemptedMessages /
// listAttemptedDestinations), and the expunging of content (Svix expunge-content for a message's
// payload and an attempt's response body): one aggregate interface of the Store and its
// records. The SQL both engines share is in attempted_sql.hpp.
//
// Expunged payload: a message whose payload was expunged keeps its row with an EMPTY payload
// (zero bytes; a published payload is always a JSON object, so never empty): no schema change.
// The store never holds an open or dead delivery of such a message (expunging discards them in
// the same transaction, so DLQ replay and recover cannot pick them up) and refuses to resend it.
// Thread-safety: as Store (every method may be called concurrently); the rest are pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "store/model.hpp"
#include "store/paging.hpp"

namespace hookd::store {

// True when the message's payload was expunged (see the header comment).
inline bool payload_expunged(const Message& msg) { return msg.payload.empty(); }

// What an expunged attempt's response body becomes (Svix writes the same text).
inline constexpr std::string_view kExpungedResponse = "EXPUNGED";

// One message as one endpoint got it: its latest delivery there (a resend makes a newer one).
struct EndpointMessage {
  Message message;
  DeliveryStatus status = DeliveryStatus::kPending;
  Millis next_attempt_at = 0;  // meaningful while pending or delivering
};

// One endpoint a message went to, with the message's latest delivery there.
struct MessageDestination {
  Endpoint endpoint;
  DeliveryStatus status = DeliveryStatus::kPending;
  Millis next_attempt_at = 0;
};

// listAttemptedMessages' conditions; each set one narrows the list in the query.
struct EndpointMessageFilter {
  std::optional<std::vector<DeliveryStatus>> statuses;  // the latest delivery's status is one
  std::optional<std::vector<std::string>> event_types;
  std::optional<std::string> channel;
  std::optional<std::string> tag;
  std::optional<Millis> since;   // message created_at >= since
  std::optional<Millis> before;  // message created_at < before
};

// What expunging a message's payload did.
struct ExpungeOutcome {
  std::string msg_id;
  int discarded = 0;  // its pending, in-flight and dead deliveries, now discarded
};

class AttemptedStore {
 public:
  virtual ~AttemptedStore() = default;
  // The endpoint's messages (one row each, its latest delivery's status), paged by message id.
  virtual Result<Page<EndpointMessage>> list_endpoint_messages(const std::string& endpoint_id,
                                                               const EndpointMessageFilter& filter,
                                                               const PageRequest& page) = 0;
  // The endpoints the message went to (one row each, latest delivery), paged by endpoint id.
  virtual Result<Page<MessageDestination>> list_message_destinations(const std::string& msg_id,
                                                                     const PageRequest& page) = 0;
  // Empties the payload of the application's message (id or event id; kNotFound otherwise),
  // discards its pending, in-flight and dead deliveries, and appends the audit entry (its
  // empty target_id becomes the message id; `after` gets {payload: "expunged", discarded}),
  // one transaction. A message expunged already: nothing changes but the entry is written.
  virtual Result<ExpungeOutcome> expunge_message_content(const std::string& app_id,
                                                         const std::string& id_or_event_id,
                                                         std::optional<AuditEntry> audit) = 0;
  // Replaces the attempt's response body with kExpungedResponse and drops its response
  // headers; its delivery's last_error, when it quoted that body, quotes the new one. One
  // transaction with the audit entry. kNotFound: no such attempt of that message.
  virtual Status expunge_attempt_content(const std::string& msg_id, const std::string& attempt_id,
                                         std::optional<AuditEntry> audit) = 0;
};

}  // namespace hookd::store
