// Svix endpoint operations on SQLite that answer with a background task: replay-missing (the
// messages an endpoint never got, in one transaction), the endpoint's delivery stats, and
// the task records themselves (background_tasks, migration 10).
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/attempted.hpp"
#include "store/audit_state.hpp"
#include "store/list_filters.hpp"
#include "store/publish_rules.hpp"
#include "store/row_codec.hpp"
#include "store/sqlite/query.hpp"
#include "store/sqlite/rows.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {
namespace {

struct RoutedEndpoint {
  std::string app_id;
  EndpointRoute route;
};

Result<RoutedEndpoint> routed_endpoint(Connection& c, const std::string& endpoint_id) {
  HOOKD_TRY(q, c.prepare("SELECT app_id, id, filter_types, channels FROM endpoints WHERE id = ?"));
  q.bind_all(endpoint_id);
  return single<RoutedEndpoint>(
      q,
      [](const Stmt& s) {
        return RoutedEndpoint{s.text(0),
                              {s.text(1), decode_list(s.opt_text(2)), decode_list(s.opt_text(3))}};
      },
      "endpoint " + endpoint_id);
}

// The application's messages created in [since, until) with no delivery to the endpoint.
Result<std::vector<Message>> undelivered_messages(Connection& c, const RoutedEndpoint& ep,
                                                  Millis since, std::optional<Millis> until) {
  HOOKD_TRY(q, c.prepare(fmt::format(
                   "SELECT {} FROM messages WHERE app_id = ?1 AND created_at >= ?2 AND "
                   "(?3 IS NULL OR created_at < ?3) AND NOT EXISTS (SELECT 1 FROM deliveries d "
                   "WHERE d.msg_id = messages.id AND d.endpoint_id = ?4) ORDER BY id",
                   kMessageColumns)));
  q.bind_all(ep.app_id, since, until, ep.route.id);
  return collect<Message>(q, read_message);
}

}  // namespace

Result<int> SqliteStore::replay_missing(const std::string& endpoint_id, Millis since,
                                        std::optional<Millis> until,
                                        std::optional<AuditEntry> audit) {
  return write([&](Connection& c) -> Result<int> {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(ep, routed_endpoint(c, endpoint_id));
    HOOKD_TRY(messages, undelivered_messages(c, ep, since, until));
    std::erase_if(messages, [&](const Message& m) {
      return !routes_to(ep.route, m) || payload_expunged(m);  // expunged: nothing to send
    });
    const auto count = static_cast<std::int64_t>(messages.size());
    if (count > 0) {
      HOOKD_TRY(first_seq, take_feed_seqs(c, count));
      for (std::int64_t i = 0; i < count; ++i) {
        HOOKD_CHECK(insert_delivery_in_tx(c, messages[static_cast<std::size_t>(i)], endpoint_id,
                                          now, first_seq + i));
      }
    }
    if (audit) {
      HOOKD_CHECK(append_audit_in_tx(
          c,
          completed_audit(*audit, endpoint_id, replay_missing_state_json(static_cast<int>(count))),
          now));
    }
    return static_cast<int>(count);
  });
}

Result<EndpointStats> SqliteStore::endpoint_stats(const std::string& endpoint_id,
                                                  std::optional<Millis> since,
                                                  std::optional<Millis> until) {
  return read([&](Connection& c) -> Result<EndpointStats> {
    HOOKD_CHECK(routed_endpoint(c, endpoint_id));
    HOOKD_TRY(q, c.prepare("SELECT status, COUNT(*) FROM deliveries WHERE endpoint_id = ?1 AND "
                           "(?2 IS NULL OR created_at >= ?2) AND (?3 IS NULL OR created_at < ?3) "
                           "GROUP BY status"));
    q.bind_all(endpoint_id, since, until);
    using StatusCount = std::pair<std::string, std::int64_t>;
    HOOKD_TRY(rows, collect<StatusCount>(q, [](const Stmt& s) {
                return StatusCount{s.text(0), s.int64(1)};
              }));
    return endpoint_stats_of(rows);
  });
}

Status SqliteStore::put_task(const BackgroundTask& t) {
  return write([&](Connection& c) -> Status {
    HOOKD_TRY(ins, c.prepare(fmt::format("INSERT INTO background_tasks ({}) VALUES "
                                         "(?, ?, ?, ?, ?, ?, ?, ?)",
                                         kTaskColumns)));
    return ins
        .bind_all(t.id, t.task, t.status, t.data, t.app_id, t.endpoint_id, t.created_at,
                  t.updated_at)
        .run();
  });
}

Result<BackgroundTask> SqliteStore::get_task(const std::string& id) {
  return read([&](Connection& c) -> Result<BackgroundTask> {
    HOOKD_TRY(q,
              c.prepare(fmt::format("SELECT {} FROM background_tasks WHERE id = ?", kTaskColumns)));
    q.bind_all(id);
    return single<BackgroundTask>(q, read_task, "background task " + id);
  });
}

Result<Page<BackgroundTask>> SqliteStore::list_tasks(const TaskFilter& filter,
                                                     const PageRequest& page) {
  return read([&](Connection& c) -> Result<Page<BackgroundTask>> {
    Query q(fmt::format("SELECT {} FROM background_tasks", kTaskColumns));
    filter_tasks(q, filter);
    q.page(page);
    HOOKD_TRY(stmt, q.prepare(c));
    HOOKD_TRY(rows, collect<BackgroundTask>(stmt, read_task));
    return make_page(std::move(rows), page, [](const BackgroundTask& t) { return t.id; });
  });
}

}  // namespace hookd::store::sqlite
