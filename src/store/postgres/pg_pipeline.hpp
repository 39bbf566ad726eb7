// PgPipeline: several statements sent on one connection without waiting for each answer
// (libpq pipeline mode), their results then read in order — one network round trip for a
// whole transaction (BEGIN ... COMMIT) instead of one per statement. Statements are
// prepared once per connection and cached, as PgConnection::query does. When one fails the
// server skips the rest up to the end of the pipeline, and an open transaction is rolled
// back, so a failed run leaves nothing behind and the connection ready for the next use.
// Thread-safety: used by the one thread holding the connection (a PgPool lease).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "store/postgres/pg_connection.hpp"

namespace hookd::store::postgres {

// Sent right after BEGIN: this transaction's COMMIT does not wait for the WAL flush (for
// writes whose loss in a database crash only repeats work, like a lease taken).
inline constexpr std::string_view kNotDurable = "SET LOCAL synchronous_commit TO off";

class PgPipeline {
 public:
  explicit PgPipeline(PgConnection& conn) : conn_(conn) {}

  // Queues a prepared statement; returns its index in run()'s results.
  std::size_t add(std::string sql, Params params = {});
  // Queues one parameterless statement, unprepared (BEGIN, COMMIT, SET LOCAL ...).
  std::size_t add_simple(std::string sql);

  // Sends every queued statement, then reads all results: one Rows per statement, in
  // order. Fails with the first statement's error (kUnavailable if the link failed).
  Result<std::vector<Rows>> run();

 private:
  struct Statement {
    std::string sql;
    Params params;
    bool prepared = true;
  };
  // What the server answers, in order: a PREPARE of statement `index`, or its execution.
  struct Expected {
    std::size_t index;
    bool is_prepare;
  };

  bool send(std::vector<Expected>& expected, std::vector<std::string>& new_names);
  // Reads one command's results up to its terminating NULL; the first one (null if none).
  PGresult* next_result();
  void reset_link();

  PgConnection& conn_;
  std::vector<Statement> statements_;
};

}  // namespace hookd::store::postgres
