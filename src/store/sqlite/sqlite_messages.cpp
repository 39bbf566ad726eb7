// Messages on SQLite: publish (message + ordering sequence + one delivery per matching
// endpoint, one transaction), batch publish (items fail alone), get, list.
#include <fmt/format.h>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/publish_rules.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

Result<std::vector<EndpointRoute>> enabled_endpoints(Connection& c, const std::string& app_id) {
  HOOKD_TRY(q, c.prepare("SELECT id, filter_types, channels FROM endpoints "
                         "WHERE app_id = ? AND disabled = 0 ORDER BY id"));
  q.bind_all(app_id);
  return collect<EndpointRoute>(q, [](const Stmt& s) {
    return EndpointRoute{s.text(0), decode_list(s.opt_text(1)), decode_list(s.opt_text(2))};
  });
}

Result<Message> load_message(Connection& c, const std::string& app_id,
                             const std::string& id_or_event_id) {
  HOOKD_TRY(q, c.prepare(fmt::format(
                   "SELECT {} FROM messages WHERE app_id = ?1 AND (id = ?2 OR event_id = ?2) "
                   "ORDER BY id = ?2 DESC LIMIT 1",
                   kMessageColumns)));
  q.bind_all(app_id, id_or_event_id);
  return single<Message>(q, read_message, "message");
}

Result<std::int64_t> next_sequence(Connection& c, const std::string& app_id,
                                   const std::string& key) {
  HOOKD_TRY(q,
            c.prepare("INSERT INTO ordering_sequences (app_id, ordering_key, last_sequence) "
                      "VALUES (?, ?, 1) ON CONFLICT (app_id, ordering_key) "
                      "DO UPDATE SET last_sequence = last_sequence + 1 RETURNING last_sequence"));
  q.bind_all(app_id, key);
  HOOKD_TRY(row, q.step());
  if (!row) return fail(ErrorCode::kInternal, "sequence upsert returned nothing");
  return q.int64(0);
}

bool item_level(const Error& e) {
  return e.code == ErrorCode::kNotFound || e.code == ErrorCode::kInvalidArgument;
}

}  // namespace

Result<Delivery> SqliteStore::insert_delivery_in_tx(Connection& c, const Message& msg,
                                                    const std::string& endpoint_id, Millis now,
                                                    std::optional<std::int64_t> feed_seq) {
  Delivery d = new_delivery(msg, endpoint_id, ids_.next("dlv"), now);
  HOOKD_TRY(ins,
            c.prepare("INSERT INTO deliveries (id, msg_id, endpoint_id, app_id, status, attempts, "
                      "next_attempt_at, ordering_key, sequence, created_at, updated_at, feed_seq) "
                      "VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?, ?, ?)"));
  HOOKD_CHECK(ins.bind_all(d.id, d.msg_id, d.endpoint_id, d.app_id, d.next_attempt_at,
                           d.ordering_key, d.sequence, d.created_at, d.updated_at, feed_seq)
                  .run());
  return d;
}

Result<std::int64_t> SqliteStore::take_feed_seqs(Connection& c, std::int64_t count) {
  HOOKD_TRY(q, c.prepare("UPDATE feed_counter SET last_seq = last_seq + ? WHERE id = 1 "
                         "RETURNING last_seq"));
  q.bind_all(count);
  HOOKD_TRY(row, q.step());
  if (!row) return fail(ErrorCode::kInternal, "the feed counter row is missing");
  const std::int64_t last = q.int64(0);
  HOOKD_CHECK(q.run());
  return last - count + 1;
}

// Item-level failures (kInvalidArgument, kNotFound) must happen before the first write:
// publish_item_in_tx relies on it instead of a savepoint.
Result<PublishOutcome> SqliteStore::publish_in_tx(Connection& c, const NewMessage& in, Millis now) {
  if (in.event_type.empty()) return fail(ErrorCode::kInvalidArgument, "eventType is required");
  HOOKD_TRY(app, c.prepare("SELECT 1 FROM applications WHERE id = ?"));
  HOOKD_TRY(app_found, app.bind_all(in.app_id).step());
  if (!app_found) return fail(ErrorCode::kNotFound, "application not found");

  PublishOutcome out;
  Message& m = out.message;
  m = new_message(in, ids_.next(id_prefix::kMessage), now);
  // Insert first, ON CONFLICT DO NOTHING: a duplicate event id is detected by the unique
  // key, never by select-then-insert.
  HOOKD_TRY(ins, c.prepare(fmt::format("INSERT INTO messages ({}) VALUES (?,?,?,?,?,?,?,?,?,?) "
                                       "ON CONFLICT (app_id, event_id) DO NOTHING",
                                       kMessageColumns)));
  ins.bind_all(m.id, m.app_id, m.event_type, m.event_id, encode_list(m.channels));
  ins.bind_blob(6, m.payload).bind(7, m.ordering_key).bind(8, std::nullopt).bind(9, now);
  ins.bind(10, encode_list(m.tags));
  HOOKD_CHECK(ins.run());
  if (c.changes() == 0) {
    if (!in.event_id) return fail(ErrorCode::kInternal, "message insert ignored");
    HOOKD_TRY(existing, load_message(c, in.app_id, *in.event_id));
    return PublishOutcome{PublishOutcome::Kind::kDuplicate, existing, 0, std::nullopt, {}};
  }
  if (m.ordering_key) {
    HOOKD_TRY(seq, next_sequence(c, m.app_id, *m.ordering_key));
    m.sequence = seq;
    HOOKD_TRY(up, c.prepare("UPDATE messages SET sequence = ? WHERE id = ?"));
    HOOKD_CHECK(up.bind_all(seq, m.id).run());
  }
  HOOKD_TRY(routes, enabled_endpoints(c, m.app_id));
  std::erase_if(routes, [&](const EndpointRoute& ep) { return !routes_to(ep, in); });
  if (routes.empty()) return out;
  HOOKD_TRY(feed_seq, take_feed_seqs(c, static_cast<std::int64_t>(routes.size())));
  for (const auto& ep : routes) {
    HOOKD_CHECK(insert_delivery_in_tx(c, m, ep.id, now, feed_seq++));
    ++out.deliveries_created;
  }
  return out;
}

Result<PublishOutcome> SqliteStore::publish(const NewMessage& msg) {
  return write([&](Connection& c) { return publish_in_tx(c, msg, clock_.now_ms()); });
}

// A rejected item leaves no trace (but its key keeps the answer); the others still commit.
// No savepoint per item (it would copy every page the item touches into the statement
// journal): publish_in_tx fails at item level only before the item's first write.
Result<PublishOutcome> SqliteStore::publish_item_in_tx(Connection& c, const NewMessage& msg,
                                                       Millis now) {
  if (msg.key) {
    HOOKD_TRY(claim, claim_key_in_tx(c, *msg.key, now));
    if (claim.outcome != IdempotencyBegin::Outcome::kStarted) {
      return PublishOutcome{PublishOutcome::Kind::kKeySeen, {}, 0, std::nullopt, claim};
    }
  }
  auto r = publish_in_tx(c, msg, now);
  if (!r && !item_level(r.error())) return std::unexpected(r.error());
  if (!r) r = PublishOutcome{PublishOutcome::Kind::kRejected, {}, 0, r.error(), {}};
  if (msg.key) {
    HOOKD_TRY(record, complete_key_in_tx(c, *msg.key, msg.key->render(*r), now));
    r->key = IdempotencyBegin{IdempotencyBegin::Outcome::kStarted, std::move(record)};
  }
  return r;
}

Result<std::vector<PublishOutcome>> SqliteStore::publish_batch_in_tx(
    Connection& c, const std::vector<NewMessage>& msgs, Millis now) {
  std::vector<PublishOutcome> out;
  out.reserve(msgs.size());
  for (const auto& msg : msgs) {
    HOOKD_TRY(item, publish_item_in_tx(c, msg, now));
    out.push_back(std::move(item));
  }
  return out;
}

Result<std::vector<PublishOutcome>> SqliteStore::publish_batch(
    const std::vector<NewMessage>& msgs) {
  return write([&](Connection& c) { return publish_batch_in_tx(c, msgs, clock_.now_ms()); });
}

Result<Message> SqliteStore::get_message(const std::string& app_id,
                                         const std::string& id_or_event_id) {
  return read([&](Connection& c) { return load_message(c, app_id, id_or_event_id); });
}

Result<Page<Message>> SqliteStore::list_messages(const std::string& app_id,
                                                 const MessageFilter& filter,
                                                 const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<Message>> {
    Query q(fmt::format("SELECT {} FROM messages", kMessageColumns));
    filter_messages(q, app_id, filter, kJsonMembership);
    q.page(page);
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<Message>(stmt, read_message));
    return make_page(std::move(rows), page, [](const Message& m) { return m.id; });
  });
}

}  // namespace hookd::store::sqlite
