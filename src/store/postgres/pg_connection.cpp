#include "store/postgres/pg_connection.hpp"

#include <fmt/format.h>

#include <charconv>

namespace hookd::store::postgres {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;
}

std::string_view trimmed(const char* text) {
  std::string_view s = text ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  return s;
}

}  // namespace

ErrorCode error_code_for_sqlstate(std::string_view state) {
  if (state.size() != 5) return ErrorCode::kUnavailable;  // no SQLSTATE: the link failed
  const std::string_view cls = state.substr(0, 2);
  if (cls == "23") return ErrorCode::kConflict;         // integrity constraint violation
  if (cls == "22") return ErrorCode::kInvalidArgument;  // data exception
  if (cls == "08" || cls == "53" || cls == "57" || cls == "40" || cls == "55" || cls == "58") {
    return ErrorCode::kUnavailable;  // connection, resources, shutdown, serialization, locks
  }
  return ErrorCode::kInternal;
}

// ---- Params ----

Params& Params::add_text(std::string v) {
  values_.push_back(std::move(v));
  nulls_.push_back(false);
  formats_.push_back(0);
  return *this;
}

Params& Params::add(std::nullopt_t) {
  values_.emplace_back();
  nulls_.push_back(true);
  formats_.push_back(0);
  return *this;
}

Params& Params::add_bytes(std::string_view bytes) {
  values_.emplace_back(bytes);
  nulls_.push_back(false);
  formats_.push_back(1);
  return *this;
}

// ---- Rows ----

std::int64_t Rows::affected() const {
  std::int64_t n = 0;
  std::string_view s = PQcmdTuples(res_.get());
  std::from_chars(s.data(), s.data() + s.size(), n);
  return n;
}

std::int64_t Rows::int64(int row, int col) const {
  std::int64_t v = 0;
  const char* s = PQgetvalue(res_.get(), row, col);
  std::from_chars(s, s + PQgetlength(res_.get(), row, col), v);
  return v;
}

std::optional<std::int64_t> Rows::opt_int64(int row, int col) const {
  if (is_null(row, col)) return std::nullopt;
  return int64(row, col);
}

bool Rows::boolean(int row, int col) const { return PQgetvalue(res_.get(), row, col)[0] == 't'; }

std::string Rows::text(int row, int col) const {
  return std::string(PQgetvalue(res_.get(), row, col),
                     static_cast<std::size_t>(PQgetlength(res_.get(), row, col)));
}

std::optional<std::string> Rows::opt_text(int row, int col) const {
  if (is_null(row, col)) return std::nullopt;
  return text(row, col);
}

std::string Rows::bytes(int row, int col) const {
  const char* s = PQgetvalue(res_.get(), row, col);
  const auto n = static_cast<std::size_t>(PQgetlength(res_.get(), row, col));
  if (n < 2 || s[0] != '\\' || s[1] != 'x') return std::string(s, n);  // not hex: as is
  std::string out;
  out.resize((n - 2) / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<char>(hex_value(s[2 + 2 * i]) * 16 + hex_value(s[3 + 2 * i]));
  }
  return out;
}

// ---- PgConnection ----

Result<std::unique_ptr<PgConnection>> PgConnection::open(const ConnectionOptions& options) {
  std::unique_ptr<PgConnection> conn(new PgConnection(options));
  if (auto s = conn->connect(); !s) return std::unexpected(s.error());
  return conn;
}

PgConnection::~PgConnection() {
  if (conn_ != nullptr) PQfinish(conn_);
}

Status PgConnection::connect() {
  if (conn_ != nullptr) PQfinish(conn_);
  prepared_.clear();
  statements_named_ = 0;
  const std::string timeout = std::to_string(options_.connect_timeout_s);
  // Later keywords override earlier ones, so the URL's own settings win over these defaults.
  const char* keys[] = {"connect_timeout", "application_name", "keepalives_idle", "dbname",
                        nullptr};
  const char* values[] = {timeout.c_str(), options_.application_name.c_str(), "10",
                          options_.url.c_str(), nullptr};
  conn_ = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (conn_ == nullptr) return fail(ErrorCode::kUnavailable, "postgresql: out of memory");
  if (PQstatus(conn_) != CONNECTION_OK) {
    return fail(ErrorCode::kUnavailable,
                fmt::format("postgresql: cannot connect: {}", trimmed(PQerrorMessage(conn_))));
  }
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);  // NOTICEs are not errors
  if (options_.schema) {
    char* quoted = PQescapeIdentifier(conn_, options_.schema->c_str(), options_.schema->size());
    const std::string sql = fmt::format("SET search_path TO {}", quoted ? quoted : "public");
    PQfreemem(quoted);
    return exec(sql);
  }
  return {};
}

bool PgConnection::healthy() const { return conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK; }

Status PgConnection::reconnect() { return connect(); }

Error PgConnection::error_of(const PGresult* res, std::string_view what) {
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  last_sqlstate_ = state ? state : "";
  ErrorCode code = error_code_for_sqlstate(state ? state : "");
  if (!healthy()) code = ErrorCode::kUnavailable;
  std::string_view message = res ? trimmed(PQresultErrorMessage(res)) : "";
  if (message.empty()) message = trimmed(PQerrorMessage(conn_));
  return Error{code, fmt::format("postgresql: {}: {}", what, message)};
}

Result<std::string> PgConnection::prepared_name(std::string_view sql, int nparams) {
  auto found = prepared_.find(std::string(sql));
  if (found != prepared_.end()) return found->second;
  std::string name = fmt::format("h{}", statements_named_++);
  std::string text(sql);
  count_round_trip();
  std::unique_ptr<PGresult, void (*)(PGresult*)> res(
      PQprepare(conn_, name.c_str(), text.c_str(), nparams, nullptr), &PQclear);
  if (PQresultStatus(res.get()) != PGRES_COMMAND_OK)
    return std::unexpected(error_of(res.get(), "prepare"));
  prepared_.emplace(std::move(text), name);
  return name;
}

Result<Rows> PgConnection::query(std::string_view sql, const Params& params) {
  if (!healthy()) return fail(ErrorCode::kUnavailable, "postgresql: connection lost");
  auto name = prepared_name(sql, params.size());
  if (!name) return std::unexpected(name.error());
  std::vector<const char*> values;
  std::vector<int> lengths;
  values.reserve(params.values_.size());
  for (std::size_t i = 0; i < params.values_.size(); ++i) {
    values.push_back(params.nulls_[i] ? nullptr : params.values_[i].data());
    lengths.push_back(static_cast<int>(params.values_[i].size()));
  }
  count_round_trip();
  PGresult* res = PQexecPrepared(conn_, name->c_str(), params.size(), values.data(), lengths.data(),
                                 params.formats_.data(), /*resultFormat=*/0);
  const auto status = PQresultStatus(res);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    Error e = error_of(res, "query");
    PQclear(res);
    return std::unexpected(std::move(e));
  }
  return Rows(res);
}

Status PgConnection::exec(std::string_view sql) {
  if (!healthy()) return fail(ErrorCode::kUnavailable, "postgresql: connection lost");
  std::string text(sql);
  count_round_trip();
  std::unique_ptr<PGresult, void (*)(PGresult*)> res(PQexec(conn_, text.c_str()), &PQclear);
  const auto status = PQresultStatus(res.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    return std::unexpected(error_of(res.get(), "exec"));
  }
  return {};
}

Status PgConnection::begin(bool durable) {
  const std::string_view sql = durable ? "BEGIN" : "BEGIN; SET LOCAL synchronous_commit TO off";
  last_sqlstate_.clear();
  if (!healthy()) {
    if (auto s = reconnect(); !s) return s;
  }
  auto s = exec(sql);
  if (s || healthy()) return s;
  if (auto r = reconnect(); !r) return r;  // the server restarted since this was last used
  return exec(sql);
}

void PgConnection::rollback() {
  if (!healthy()) return;
  count_round_trip();
  PQclear(PQexec(conn_, "ROLLBACK"));
}

}  // namespace hookd::store::postgres
