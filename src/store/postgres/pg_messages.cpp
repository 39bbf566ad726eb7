// Messages on PostgreSQL: publish (message + ordering sequence + one delivery per matching
// endpoint, one transaction) and batch publish (many in one transaction: the group commit
// the API uses), get, list. Items are validated before anything is written, so a rejected
// item needs no savepoint; any database error fails the whole batch.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "hookd/ids.hpp"
#include "hookd/result.hpp"
#include "store/attempted.hpp"
#include "store/audit_state.hpp"
#include "store/list_filters.hpp"
#include "store/postgres/pg_arrays.hpp"
#include "store/postgres/pg_query.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"
#include "store/publish_rules.hpp"

namespace hookd::store::postgres {
namespace {

// The application's enabled endpoints; nullopt when the application does not exist.
using Routes = std::optional<std::vector<EndpointRoute>>;

Result<Routes> load_routes(PgConnection& c, const std::string& app_id) {
  HOOKD_TRY(rows, c.query("SELECT e.id, e.filter_types, e.channels FROM applications a "
                          "LEFT JOIN endpoints e ON e.app_id = a.id AND NOT e.disabled "
                          "WHERE a.id = $1 ORDER BY e.id",
                          Params().add(app_id)));
  if (rows.size() == 0) return Routes{};
  std::vector<EndpointRoute> out;
  for (int i = 0; i < rows.size(); ++i) {
    if (rows.is_null(i, 0)) continue;  // the application has no enabled endpoint
    out.push_back(
        {rows.text(i, 0), decode_list(rows.opt_text(i, 1)), decode_list(rows.opt_text(i, 2))});
  }
  return Routes{std::move(out)};
}

Result<Message> load_message(PgConnection& c, const std::string& app_id,
                             const std::string& id_or_event_id) {
  HOOKD_TRY(rows, c.query(fmt::format("SELECT {} FROM messages WHERE app_id = $1 AND "
                                      "(id = $2 OR event_id = $2) ORDER BY id = $2 DESC LIMIT 1",
                                      kMessageColumns),
                          Params().add_all(app_id, id_or_event_id)));
  return single<Message>(rows, read_message, "message");
}

// Takes the next sequence of (app, key) and stores it on the message, in one round trip.
// The row lock on ordering_sequences serializes publishers of one key until they commit, so
// sequences commit in order on every node.
Result<std::int64_t> assign_sequence(PgConnection& c, const Message& m) {
  HOOKD_TRY(rows, c.query("WITH s AS (INSERT INTO ordering_sequences (app_id, ordering_key, "
                          "last_sequence) VALUES ($1, $2, 1) ON CONFLICT (app_id, ordering_key) "
                          "DO UPDATE SET last_sequence = ordering_sequences.last_sequence + 1 "
                          "RETURNING last_sequence) "
                          "UPDATE messages SET sequence = (SELECT last_sequence FROM s) "
                          "WHERE id = $3 RETURNING sequence",
                          Params().add_all(m.app_id, *m.ordering_key, m.id)));
  if (rows.size() == 0) return fail(ErrorCode::kInternal, "sequence upsert returned nothing");
  return rows.int64(0, 0);
}

// One INSERT for all of a message's deliveries. `in_feed` false: feed_xid NULL (a resend);
// else the column's default, the writing transaction's id.
Status insert_deliveries(PgConnection& c, const std::vector<Delivery>& ds, bool in_feed = true) {
  if (ds.empty()) return {};
  constexpr int kColumns = 9;
  std::string values;
  Params params;
  for (std::size_t i = 0; i < ds.size(); ++i) {
    const Delivery& d = ds[i];
    const int first = static_cast<int>(i) * kColumns + 1;
    values += fmt::format("{}({}, 'pending', 0, ${}, ${}, ${}, ${}, ${}, {})", i ? ", " : "",
                          placeholders(4, first), first + 4, first + 5, first + 6, first + 7,
                          first + 8, in_feed ? "DEFAULT" : "NULL");
    params.add_all(d.id, d.msg_id, d.endpoint_id, d.app_id, d.next_attempt_at, d.ordering_key,
                   d.sequence, d.created_at, d.updated_at);
  }
  HOOKD_CHECK(
      c.query("INSERT INTO deliveries (id, msg_id, endpoint_id, app_id, status, attempts, "
              "next_attempt_at, ordering_key, sequence, created_at, updated_at, feed_xid) "
              "VALUES " +
                  values,
              params));
  return {};
}

// Messages without an ordering key, all in one INSERT; returns the ids actually inserted
// (the others hit the (app_id, event_id) unique key: duplicates).
Result<std::set<std::string>> insert_messages(PgConnection& c, const std::vector<Message>& ms,
                                              Millis now) {
  std::vector<ArrayLiteral> cols(7);
  for (const Message& m : ms) {
    cols[0].add(m.id);
    cols[1].add(m.app_id);
    cols[2].add(m.event_type);
    cols[3].add(m.event_id);
    cols[4].add(encode_list(m.channels));
    cols[5].add_bytes(m.payload);
    cols[6].add(encode_list(m.tags));
  }
  Params p;
  for (const auto& col : cols) p.add(col.str());
  p.add(now);
  HOOKD_TRY(rows,
            c.query("INSERT INTO messages (id, app_id, event_type, event_id, channels, "
                    "payload, ordering_key, sequence, created_at, tags) "
                    "SELECT id, app, et, eid, ch, pl, NULL, NULL, $8, tg FROM unnest($1::text[], "
                    "$2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[], $7::text[]) "
                    "AS t(id, app, et, eid, ch, pl, tg) "
                    "ON CONFLICT (app_id, event_id) DO NOTHING RETURNING id",
                    p));
  std::set<std::string> inserted;
  for (int i = 0; i < rows.size(); ++i) inserted.insert(rows.text(i, 0));
  return inserted;
}

// Deliveries without an ordering key, all in one INSERT.
Status insert_plain_deliveries(PgConnection& c, const std::vector<Delivery>& ds, Millis now) {
  if (ds.empty()) return {};
  std::vector<ArrayLiteral> cols(4);
  for (const Delivery& d : ds) {
    cols[0].add(d.id);
    cols[1].add(d.msg_id);
    cols[2].add(d.endpoint_id);
    cols[3].add(d.app_id);
  }
  HOOKD_CHECK(
      c.query("INSERT INTO deliveries (id, msg_id, endpoint_id, app_id, status, "
              "attempts, next_attempt_at, ordering_key, sequence, created_at, updated_at) "
              "SELECT id, msg, ep, app, 'pending', 0, $5, NULL, NULL, $5, $5 "
              "FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) "
              "AS t(id, msg, ep, app)",
              Params().add_all(cols[0].str(), cols[1].str(), cols[2].str(), cols[3].str(), now)));
  return {};
}

}  // namespace

Result<Delivery> PgStore::insert_delivery_in_tx(PgConnection& c, const Message& msg,
                                                const std::string& endpoint_id, Millis now) {
  Delivery d = new_delivery(msg, endpoint_id, ids_.next("dlv"), now);
  HOOKD_CHECK(insert_deliveries(c, {d}, /*in_feed=*/false));
  return d;
}

// Validation (event type, application) happens before any write: a rejected item leaves no
// trace without a savepoint.
Result<PublishOutcome> PgStore::publish_in_tx(PgConnection& c, const NewMessage& in, Millis now) {
  if (in.event_type.empty()) return fail(ErrorCode::kInvalidArgument, "eventType is required");
  HOOKD_TRY(routes, load_routes(c, in.app_id));
  if (!routes) return fail(ErrorCode::kNotFound, "application not found");

  PublishOutcome out;
  Message& m = out.message;
  m = new_message(in, ids_.next(id_prefix::kMessage), now);
  // ON CONFLICT DO NOTHING: a duplicate event id is detected by the unique key (and waits
  // for a concurrent insert of the same key to commit or roll back).
  Params p;
  p.add_all(m.id, m.app_id, m.event_type, m.event_id, encode_list(m.channels));
  p.add_bytes(m.payload).add_all(m.ordering_key, std::nullopt, now, encode_list(m.tags));
  HOOKD_TRY(ins, c.query(fmt::format("INSERT INTO messages ({}) VALUES ({}) "
                                     "ON CONFLICT (app_id, event_id) DO NOTHING",
                                     kMessageColumns, placeholders(10)),
                         p));
  if (ins.affected() == 0) {
    if (!in.event_id) return fail(ErrorCode::kInternal, "message insert ignored");
    HOOKD_TRY(existing, load_message(c, in.app_id, *in.event_id));
    return PublishOutcome{PublishOutcome::Kind::kDuplicate, existing, 0, std::nullopt, {}};
  }
  if (m.ordering_key) {
    HOOKD_TRY(seq, assign_sequence(c, m));
    m.sequence = seq;
  }
  std::vector<Delivery> deliveries;
  for (const auto& ep : *routes) {
    if (routes_to(ep, in)) deliveries.push_back(new_delivery(m, ep.id, ids_.next("dlv"), now));
  }
  HOOKD_CHECK(insert_deliveries(c, deliveries));
  out.deliveries_created = static_cast<int>(deliveries.size());
  return out;
}

Result<PublishOutcome> PgStore::publish(const NewMessage& msg) {
  return write([&](PgConnection& c) { return publish_in_tx(c, msg, clock_.now_ms()); });
}

// Group commit in a few statements whatever the batch size: items are validated first
// (rejected ones write nothing), items with an ordering key go one by one (their sequence
// needs the key's row lock), all the others share one INSERT of messages and one of
// deliveries.
Status PgStore::publish_items_in_tx(PgConnection& c, const std::vector<NewMessage>& msgs,
                                    const std::vector<bool>& settled,
                                    std::vector<PublishOutcome>& out, Millis now) {
  std::map<std::string, Routes> routes;
  std::vector<std::size_t> bulk;
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    if (settled[i]) continue;
    const NewMessage& in = msgs[i];
    auto cached = routes.find(in.app_id);
    if (cached == routes.end()) {
      HOOKD_TRY(loaded, load_routes(c, in.app_id));
      cached = routes.emplace(in.app_id, std::move(loaded)).first;
    }
    if (in.event_type.empty() || !cached->second) {
      out[i] = PublishOutcome{PublishOutcome::Kind::kRejected,
                              {},
                              0,
                              in.event_type.empty()
                                  ? Error{ErrorCode::kInvalidArgument, "eventType is required"}
                                  : Error{ErrorCode::kNotFound, "application not found"},
                              {}};
    } else if (in.ordering_key) {
      HOOKD_TRY(one, publish_in_tx(c, in, now));
      out[i] = std::move(one);
    } else {
      bulk.push_back(i);
    }
  }
  if (bulk.empty()) return {};
  std::vector<Message> messages;
  for (std::size_t i : bulk) {
    const NewMessage& in = msgs[i];
    messages.push_back(new_message(in, ids_.next(id_prefix::kMessage), now));  // no key
  }
  HOOKD_TRY(inserted, insert_messages(c, messages, now));
  std::vector<Delivery> deliveries;
  for (std::size_t k = 0; k < bulk.size(); ++k) {
    const NewMessage& in = msgs[bulk[k]];
    PublishOutcome& o = out[bulk[k]];
    if (!inserted.contains(messages[k].id)) {
      if (!in.event_id) return fail(ErrorCode::kInternal, "message insert ignored");
      HOOKD_TRY(existing, load_message(c, in.app_id, *in.event_id));
      o = PublishOutcome{PublishOutcome::Kind::kDuplicate, existing, 0, std::nullopt, {}};
      continue;
    }
    o.message = messages[k];
    for (const auto& ep : *routes[in.app_id]) {
      if (!routes_to(ep, in)) continue;
      deliveries.push_back(new_delivery(messages[k], ep.id, ids_.next("dlv"), now));
      ++o.deliveries_created;
    }
  }
  return insert_plain_deliveries(c, deliveries, now);
}

// Keyed items: keys are claimed first, in (scope, key) order so that two nodes claiming
// overlapping keys cannot deadlock; a key seen before settles its item without a publish.
// A key repeated inside the batch answers like a later request: replay of the first item
// (or 422 for a different fingerprint). Responses are stored once the items are published.
Result<std::vector<PublishOutcome>> PgStore::publish_batch(const std::vector<NewMessage>& msgs) {
  return write([&](PgConnection& c) -> Result<std::vector<PublishOutcome>> {
    const Millis now = clock_.now_ms();
    std::vector<PublishOutcome> out(msgs.size());
    std::vector<bool> settled(msgs.size(), false);
    std::vector<std::size_t> keyed;
    for (std::size_t i = 0; i < msgs.size(); ++i) {
      if (msgs[i].key) keyed.push_back(i);
    }
    auto id_of = [&](std::size_t i) { return std::tie(msgs[i].key->scope, msgs[i].key->key); };
    std::ranges::stable_sort(keyed,
                             [&](std::size_t a, std::size_t b) { return id_of(a) < id_of(b); });
    std::vector<std::pair<std::size_t, std::size_t>> repeats;  // (item, first item of its key)
    std::vector<std::size_t> started;
    for (std::size_t n = 0; n < keyed.size(); ++n) {
      const std::size_t i = keyed[n];
      settled[i] = true;
      if (n > 0 && id_of(keyed[n - 1]) == id_of(i)) {
        const bool chained = !repeats.empty() && repeats.back().first == keyed[n - 1];
        repeats.emplace_back(i, chained ? repeats.back().second : keyed[n - 1]);
        continue;
      }
      HOOKD_TRY(claim, claim_key_in_tx(c, *msgs[i].key, now));
      if (claim.outcome == IdempotencyBegin::Outcome::kStarted) {
        settled[i] = false;
        started.push_back(i);
      } else {
        out[i] = PublishOutcome{PublishOutcome::Kind::kKeySeen, {}, 0, std::nullopt, claim};
      }
    }
    HOOKD_CHECK(publish_items_in_tx(c, msgs, settled, out, now));
    for (std::size_t i : started) {
      HOOKD_TRY(record, complete_key_in_tx(c, *msgs[i].key, msgs[i].key->render(out[i]), now));
      out[i].key = IdempotencyBegin{IdempotencyBegin::Outcome::kStarted, std::move(record)};
    }
    for (auto [i, first] : repeats) {
      const IdempotencyRecord& record = out[first].key.value().record;
      out[i] = PublishOutcome{
          PublishOutcome::Kind::kKeySeen,
          {},
          0,
          std::nullopt,
          IdempotencyBegin{idempotency_outcome(record, msgs[i].key->fingerprint), record}};
    }
    return out;
  });
}

Result<Message> PgStore::get_message(const std::string& app_id, const std::string& id_or_event_id) {
  return read([&](PgConnection& c) { return load_message(c, app_id, id_or_event_id); });
}

Result<Page<Message>> PgStore::list_messages(const std::string& app_id, const MessageFilter& filter,
                                             const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<Message>> {
    PgQuery q(fmt::format("SELECT {} FROM messages", kMessageColumns));
    filter_messages(q, app_id, filter, kJsonMembership);
    q.page(page);
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<Message>(rows, read_message), page,
                     [](const Message& m) { return m.id; });
  });
}

// Replay-missing: the endpoint row is locked first (FOR UPDATE), so two nodes replaying the
// same endpoint at once take turns and the second finds the deliveries the first made.
Result<int> PgStore::replay_missing(const std::string& endpoint_id, Millis since,
                                    std::optional<Millis> until, std::optional<AuditEntry> audit) {
  return write([&](PgConnection& c) -> Result<int> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(ep_rows, c.query("SELECT app_id, id, filter_types, channels FROM endpoints "
                               "WHERE id = $1 FOR UPDATE",
                               Params().add(endpoint_id)));
    if (ep_rows.size() == 0)
      return fail(ErrorCode::kNotFound, "endpoint " + endpoint_id + " not found");
    const std::string app_id = ep_rows.text(0, 0);
    const EndpointRoute route{ep_rows.text(0, 1), decode_list(ep_rows.opt_text(0, 2)),
                              decode_list(ep_rows.opt_text(0, 3))};
    HOOKD_TRY(rows,
              c.query(fmt::format("SELECT {} FROM messages WHERE app_id = $1 AND "
                                  "created_at >= $2 AND ($3::bigint IS NULL OR created_at < "
                                  "$3) AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE "
                                  "d.msg_id = messages.id AND d.endpoint_id = $4) ORDER BY id",
                                  kMessageColumns),
                      Params().add_all(app_id, since, until, endpoint_id)));
    std::vector<Delivery> deliveries;
    for (const auto& m : collect<Message>(rows, read_message)) {
      if (routes_to(route, m) && !payload_expunged(m))  // expunged: nothing to send
        deliveries.push_back(new_delivery(m, endpoint_id, ids_.next("dlv"), now));
    }
    constexpr std::size_t kRowsPerInsert = 1000;  // 9 parameters a row, far below 65,535
    for (std::size_t i = 0; i < deliveries.size(); i += kRowsPerInsert) {
      const auto end = std::min(deliveries.size(), i + kRowsPerInsert);
      HOOKD_CHECK(insert_deliveries(
          c, std::vector<Delivery>(deliveries.begin() + static_cast<std::ptrdiff_t>(i),
                                   deliveries.begin() + static_cast<std::ptrdiff_t>(end))));
    }
    const int count = static_cast<int>(deliveries.size());
    if (audit) {
      HOOKD_CHECK(append_audit_in_tx(
          c, completed_audit(*audit, endpoint_id, replay_missing_state_json(count)), now));
    }
    return count;
  });
}

}  // namespace hookd::store::postgres
