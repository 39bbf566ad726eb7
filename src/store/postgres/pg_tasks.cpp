// Svix endpoint stats and background task records (background_tasks, migration 10) on
// PostgreSQL; replay-missing itself is in pg_messages.cpp beside the delivery inserts.
#include <fmt/format.h>

#include "hookd/result.hpp"
#include "store/list_filters.hpp"
#include "store/postgres/pg_query.hpp"
#include "store/postgres/pg_rows.hpp"
#include "store/postgres/pg_store.hpp"
#include "store/row_codec.hpp"

namespace hookd::store::postgres {

Result<EndpointStats> PgStore::endpoint_stats(const std::string& endpoint_id,
                                              std::optional<Millis> since,
                                              std::optional<Millis> until) {
  return read([&](PgConnection& c) -> Result<EndpointStats> {
    HOOKD_TRY(found, c.query("SELECT 1 FROM endpoints WHERE id = $1", Params().add(endpoint_id)));
    if (found.size() == 0)
      return fail(ErrorCode::kNotFound, "endpoint " + endpoint_id + " not found");
    HOOKD_TRY(rows, c.query("SELECT status, COUNT(*) FROM deliveries WHERE endpoint_id = $1 AND "
                            "($2::bigint IS NULL OR created_at >= $2) AND "
                            "($3::bigint IS NULL OR created_at < $3) GROUP BY status",
                            Params().add_all(endpoint_id, since, until)));
    std::vector<std::pair<std::string, std::int64_t>> counts;
    for (int i = 0; i < rows.size(); ++i) counts.emplace_back(rows.text(i, 0), rows.int64(i, 1));
    return endpoint_stats_of(counts);
  });
}

Status PgStore::put_task(const BackgroundTask& t) {
  return write([&](PgConnection& c) -> Status {
    HOOKD_CHECK(c.query(fmt::format("INSERT INTO background_tasks ({}) VALUES "
                                    "($1, $2, $3, $4, $5, $6, $7, $8)",
                                    kTaskColumns),
                        Params().add_all(t.id, t.task, t.status, t.data, t.app_id, t.endpoint_id,
                                         t.created_at, t.updated_at)));
    return {};
  });
}

Result<BackgroundTask> PgStore::get_task(const std::string& id) {
  return read([&](PgConnection& c) -> Result<BackgroundTask> {
    HOOKD_TRY(rows,
              c.query(fmt::format("SELECT {} FROM background_tasks WHERE id = $1", kTaskColumns),
                      Params().add(id)));
    return single<BackgroundTask>(rows, read_task, "background task " + id);
  });
}

Result<Page<BackgroundTask>> PgStore::list_tasks(const TaskFilter& filter,
                                                 const PageRequest& page) {
  return read([&](PgConnection& c) -> Result<Page<BackgroundTask>> {
    PgQuery q(fmt::format("SELECT {} FROM background_tasks", kTaskColumns));
    filter_tasks(q, filter);
    q.page(page);
    HOOKD_TRY(rows, q.run(c));
    return make_page(collect<BackgroundTask>(rows, read_task), page,
                     [](const BackgroundTask& t) { return t.id; });
  });
}

}  // namespace hookd::store::postgres
