// A thin RAII layer over one libpq connection (PGconn): connect with a timeout and optional
// search_path, prepared statements cached per SQL text (PQprepare once, PQexecPrepared
// after), typed parameters (text, with bytea sent binary), row access on the text result
// format, error mapping to hookd::Error, and a transaction helper. A lost connection makes
// every call fail with kUnavailable until reconnect() succeeds (the pool calls it).
// Thread-safety: a PgConnection is used by one thread at a time; PgPool hands it out.
#pragma once

#include <libpq-fe.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hookd/result.hpp"

namespace hookd::store::postgres {

// Positional parameters $1..$N in the order they are added. NULLs, text, integers,
// booleans; add_bytes sends raw bytes (bytea) in binary format.
class Params {
 public:
  Params& add(std::int64_t v) { return add_text(std::to_string(v)); }
  Params& add(int v) { return add(static_cast<std::int64_t>(v)); }
  Params& add(bool v) { return add_text(v ? "true" : "false"); }
  Params& add(std::string_view v) { return add_text(std::string(v)); }
  Params& add(const std::string& v) { return add_text(v); }
  Params& add(const char* v) { return add_text(v); }
  Params& add(std::nullopt_t);
  template <class T>
  Params& add(const std::optional<T>& v) {
    return v ? add(*v) : add(std::nullopt);
  }
  Params& add_bytes(std::string_view bytes);
  template <class... A>
  Params& add_all(const A&... args) {
    (add(args), ...);
    return *this;
  }
  int size() const { return static_cast<int>(values_.size()); }

 private:
  friend class PgConnection;
  friend class PgPipeline;
  Params& add_text(std::string v);
  std::vector<std::string> values_;
  std::vector<bool> nulls_;
  std::vector<int> formats_;
};

// The rows of one statement (text format). Owns the PGresult.
class Rows {
 public:
  explicit Rows(PGresult* res) : res_(res, &PQclear) {}
  int size() const { return PQntuples(res_.get()); }
  std::int64_t affected() const;
  bool is_null(int row, int col) const { return PQgetisnull(res_.get(), row, col) != 0; }
  std::int64_t int64(int row, int col) const;
  std::optional<std::int64_t> opt_int64(int row, int col) const;
  bool boolean(int row, int col) const;
  std::string text(int row, int col) const;
  std::optional<std::string> opt_text(int row, int col) const;
  std::string bytes(int row, int col) const;  // bytea (hex text output) -> raw bytes

 private:
  std::unique_ptr<PGresult, void (*)(PGresult*)> res_;
};

// One row of Rows: the `RowSource` the shared row readers take (store/row_codec.hpp).
// `first`: the reader's column 0 (a statement returning two records side by side, e.g. a
// delivery and its message).
struct Row {
  const Rows& rows;
  int index;
  int first = 0;
  bool is_null(int c) const { return rows.is_null(index, first + c); }
  std::int64_t int64(int c) const { return rows.int64(index, first + c); }
  std::optional<std::int64_t> opt_int64(int c) const { return rows.opt_int64(index, first + c); }
  bool boolean(int c) const { return rows.boolean(index, first + c); }
  std::string text(int c) const { return rows.text(index, first + c); }
  std::optional<std::string> opt_text(int c) const { return rows.opt_text(index, first + c); }
  std::string bytes(int c) const { return rows.bytes(index, first + c); }
};

struct ConnectionOptions {
  std::string url;                    // postgresql://... or a key=value conninfo
  std::optional<std::string> schema;  // SET search_path at connect (tests: one per test)
  int connect_timeout_s = 3;
  std::string application_name = "hookd";  // pg_stat_activity shows it
  // When set, every round trip to the server (a statement, a PREPARE, a whole pipeline) is
  // counted here: what tests count to prove that a batch costs one. Shared by a pool.
  std::shared_ptr<std::atomic<std::int64_t>> round_trips = nullptr;
};

class PgConnection {
 public:
  static Result<std::unique_ptr<PgConnection>> open(const ConnectionOptions& options);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // A prepared statement (cached per SQL text) executed with `params`.
  Result<Rows> query(std::string_view sql, const Params& params = {});
  // Unprepared, may hold several statements (DDL, BEGIN/COMMIT, SAVEPOINT).
  Status exec(std::string_view sql);

  bool healthy() const;
  // Drops the session and connects again (prepared statements are forgotten).
  Status reconnect();

  // Runs `body()` (returning Result<T>/Status) inside BEGIN ... COMMIT; rolls back when the
  // body or COMMIT fails. `durable` false: COMMIT does not wait for the WAL flush
  // (synchronous_commit off for this transaction only) — for writes whose loss in a database
  // crash is harmless (a lease taken: the row simply stays claimable).
  template <class F>
  auto transaction(F&& body, bool durable = true) -> decltype(body()) {
    if (auto s = begin(durable); !s) return std::unexpected(s.error());
    auto r = body();
    if (!r) {
      rollback();
      return r;
    }
    if (auto s = exec("COMMIT"); !s) return std::unexpected(s.error());
    return r;
  }
  void rollback();
  // BEGIN; a connection found dead at this point (nothing sent yet) is reconnected once.
  Status begin(bool durable = true);
  // The last failure was a deadlock or serialization failure: the transaction may be rerun.
  bool retryable_failure() const { return last_sqlstate_ == "40001" || last_sqlstate_ == "40P01"; }

 private:
  friend class PgPipeline;  // sends several statements at once on this connection
  explicit PgConnection(ConnectionOptions options) : options_(std::move(options)) {}
  Status connect();
  Error error_of(const PGresult* res, std::string_view what);
  Result<std::string> prepared_name(std::string_view sql, int nparams);
  void count_round_trip() {
    if (options_.round_trips) options_.round_trips->fetch_add(1, std::memory_order_relaxed);
  }

  ConnectionOptions options_;
  PGconn* conn_ = nullptr;
  std::unordered_map<std::string, std::string> prepared_;  // SQL text -> statement name
  int statements_named_ = 0;  // names are never reused (a failed prepare leaves a gap)
  std::string last_sqlstate_;
};

// Maps a SQLSTATE to an ErrorCode: unique/foreign key/check -> kConflict, data exceptions ->
// kInvalidArgument, connection/shutdown/resources/serialization -> kUnavailable.
ErrorCode error_code_for_sqlstate(std::string_view sqlstate);

}  // namespace hookd::store::postgres
