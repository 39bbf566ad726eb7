// Store::write_batch and Store::inbox_write_batch on SQLite: the queued publishes (inbound
// events) and the dispatcher's (forwarder's) round in ONE write transaction. Each part runs
// inside its own savepoint, so a part that fails is undone alone and the other still commits;
// one commit (one fsync with synchronous=FULL) for both.
#include <fmt/format.h>

#include <string_view>

#include "hookd/result.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace hookd::store::sqlite {

namespace {

// Runs `body()` inside SAVEPOINT `name`. The part's own failure comes back as the inner
// Result (its writes undone); the outer error means the transaction itself is broken
// (the savepoint could not be set, undone or released) and must be rolled back.
template <class F>
auto in_savepoint(Connection& c, std::string_view name, F&& body) -> Result<decltype(body())> {
  HOOKD_CHECK(c.exec(fmt::format("SAVEPOINT {}", name)));
  auto part = body();
  if (!part) HOOKD_CHECK(c.exec(fmt::format("ROLLBACK TO {}", name)));
  HOOKD_CHECK(c.exec(fmt::format("RELEASE {}", name)));
  return part;
}

}  // namespace

WriteBatchResult SqliteStore::write_batch(const WriteBatch& batch) {
  WriteBatchResult out;
  auto committed = write([&](Connection& c) -> Status {
    const Millis now = clock_.now_ms();
    if (!batch.publishes.empty()) {
      HOOKD_TRY(published, in_savepoint(c, "batch_publish", [&] {
                  return publish_batch_in_tx(c, batch.publishes, now);
                }));
      out.published = std::move(published);
    }
    if (batch.round) {
      HOOKD_TRY(round, in_savepoint(c, "batch_round",
                                    [&] { return dispatch_round_in_tx(c, *batch.round, now); }));
      out.round = std::move(round);
    }
    return {};
  });
  if (!committed) {
    out.published = std::unexpected(committed.error());
    if (batch.round) out.round = std::unexpected(committed.error());
  }
  return out;
}

InboxWriteBatchResult SqliteStore::inbox_write_batch(InboxWriteBatch batch) {
  InboxWriteBatchResult out;
  if (batch.inserts.empty()) {  // nothing to make durable: the round alone, relaxed
    if (batch.round) out.round = inbox_round(*batch.round);
    return out;
  }
  auto committed = write([&](Connection& c) -> Status {
    const Millis now = clock_.now_ms();
    HOOKD_TRY(inserted, in_savepoint(c, "batch_inbox", [&] {
                return inbox_insert_batch_in_tx(c, batch.inserts, now);
              }));
    out.inserted = std::move(inserted);
    if (batch.round) {
      HOOKD_TRY(round, in_savepoint(c, "batch_inbox_round",
                                    [&] { return inbox_round_in_tx(c, *batch.round, now); }));
      out.round = std::move(round);
    }
    return {};
  });
  if (!committed) {
    out.inserted = std::unexpected(committed.error());
    if (batch.round) out.round = std::unexpected(committed.error());
  }
  return out;
}

}  // namespace hookd::store::sqlite
