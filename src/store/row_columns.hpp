// The column list each SELECT / RETURNING / INSERT uses per table, in the order the row
// readers (`row_codec.hpp`) take them. Both backends have the same columns under the same
// names (one schema, one migration history). Thread-safety: constants.
#pragma once

#include <string_view>

namespace hookd::store {

inline constexpr std::string_view kAppColumns =
    "id, uid, name, rate_limit, metadata, created_at, updated_at";

inline constexpr std::string_view kEventTypeColumns =
    "name, description, archived, schemas, created_at, updated_at";

inline constexpr std::string_view kEndpointColumns =
    "id, app_id, uid, url, description, filter_types, channels, secret, previous_secret, "
    "previous_expires_at, rate_limit, disabled, disabled_reason, fifo, headers, retry_policy, "
    "connect_timeout_ms, total_timeout_ms, metadata, created_at, updated_at, revision, "
    "header_naming";

inline constexpr std::string_view kMessageColumns =
    "id, app_id, event_type, event_id, channels, payload, ordering_key, sequence, created_at, "
    "tags";

inline constexpr std::string_view kDeliveryColumns =
    "id, msg_id, endpoint_id, app_id, status, attempts, next_attempt_at, lease_owner, "
    "lease_until, first_attempt_at, last_attempt_at, last_error, last_response_status, "
    "ordering_key, sequence, created_at, updated_at";
inline constexpr int kDeliveryColumnCount = 17;

// A feed item: the message's columns (as kMessageColumns) of `m`, then the delivery `d`'s id
// and status.
inline constexpr std::string_view kFeedColumns =
    "m.id, m.app_id, m.event_type, m.event_id, m.channels, m.payload, m.ordering_key, "
    "m.sequence, m.created_at, m.tags, d.id, d.status";
inline constexpr int kFeedColumnCount = 12;

inline constexpr std::string_view kAttemptColumns =
    "id, delivery_id, msg_id, endpoint_id, app_id, attempted_at, response_status, "
    "response_headers, response_body, duration_ms, error, success, trigger, url";

inline constexpr std::string_view kInboxColumns =
    "id, source, event_id, business_key, entity_key, sequence, event_time, received_at, "
    "processed_at, status, attempts, next_attempt_at, lease_owner, lease_until, depends_on, "
    "last_error, headers, payload";

inline constexpr std::string_view kInboxHistoryColumns =
    "inbox_id, at, from_status, to_status, note";

inline constexpr std::string_view kInboxEntityColumns =
    "source, entity_key, last_sequence, state, terminal, updated_at";

inline constexpr std::string_view kIdemColumns =
    "scope, key, fingerprint, state, response_status, response_headers, response_body, "
    "created_at, updated_at, expires_at";

inline constexpr std::string_view kProxyKeyColumns =
    "id, proxy, tenant, key, fingerprint, state, owner, lease_until, status, headers, body, "
    "body_size, body_sha256, created_at, updated_at, expires_at, resolved_by, reason";

inline constexpr std::string_view kTaskColumns =
    "id, task, status, data, app_id, endpoint_id, created_at, updated_at";

inline constexpr std::string_view kAuditColumns =
    "id, at, actor, action, target_type, target_id, reason, before, after";

}  // namespace hookd::store
