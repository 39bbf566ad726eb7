#include "store/postgres/pg_pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace hookd::store::postgres {

std::size_t PgPipeline::add(std::string sql, Params params) {
  statements_.push_back({std::move(sql), std::move(params), true});
  return statements_.size() - 1;
}

std::size_t PgPipeline::add_simple(std::string sql) {
  statements_.push_back({std::move(sql), {}, false});
  return statements_.size() - 1;
}

// Queues every statement (a PREPARE first for SQL this connection has not seen) and the
// Sync; false when libpq refused one (the link is gone). New statement names are entered
// in the connection's cache at once (a later statement of the same text reuses them) and
// listed in `unconfirmed` until the server confirms their PREPARE.
bool PgPipeline::send(std::vector<Expected>& expected, std::vector<std::string>& unconfirmed) {
  PGconn* pg = conn_.conn_;
  for (std::size_t i = 0; i < statements_.size(); ++i) {
    const Statement& s = statements_[i];
    if (!s.prepared) {
      if (PQsendQueryParams(pg, s.sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) != 1) {
        return false;
      }
      expected.push_back({i, false});
      continue;
    }
    auto found = conn_.prepared_.find(s.sql);
    if (found == conn_.prepared_.end()) {
      std::string name = fmt::format("h{}", conn_.statements_named_++);
      if (PQsendPrepare(pg, name.c_str(), s.sql.c_str(), s.params.size(), nullptr) != 1) {
        return false;
      }
      expected.push_back({i, true});
      unconfirmed.push_back(s.sql);
      found = conn_.prepared_.emplace(s.sql, std::move(name)).first;
    }
    const Params& p = s.params;
    std::vector<const char*> values;
    std::vector<int> lengths;
    for (std::size_t k = 0; k < p.values_.size(); ++k) {
      values.push_back(p.nulls_[k] ? nullptr : p.values_[k].data());
      lengths.push_back(static_cast<int>(p.values_[k].size()));
    }
    if (PQsendQueryPrepared(pg, found->second.c_str(), p.size(), values.data(), lengths.data(),
                            p.formats_.data(), /*resultFormat=*/0) != 1) {
      return false;
    }
    expected.push_back({i, false});
  }
  return PQpipelineSync(pg) == 1;
}

PGresult* PgPipeline::next_result() {
  PGresult* first = PQgetResult(conn_.conn_);
  if (first == nullptr) return nullptr;
  while (PGresult* more = PQgetResult(conn_.conn_)) PQclear(more);
  return first;
}

// The pipeline's state is unknown after a protocol-level failure: start a fresh session
// (if the server is gone, the connection stays broken and the pool reconnects it later).
void PgPipeline::reset_link() { (void)conn_.reconnect(); }

Result<std::vector<Rows>> PgPipeline::run() {
  if (!conn_.healthy()) return fail(ErrorCode::kUnavailable, "postgresql: connection lost");
  conn_.last_sqlstate_.clear();
  PGconn* pg = conn_.conn_;
  auto link_error = [&](std::string_view what) {
    Error e = conn_.error_of(nullptr, what);
    e.code = ErrorCode::kUnavailable;
    reset_link();
    return std::unexpected(std::move(e));
  };
  if (PQenterPipelineMode(pg) != 1) return link_error("pipeline");
  conn_.count_round_trip();
  std::vector<Expected> expected;
  std::vector<std::string> unconfirmed;
  if (!send(expected, unconfirmed)) return link_error("pipeline send");

  std::vector<Rows> out;
  out.reserve(statements_.size());
  std::optional<Error> failure;
  for (const Expected& e : expected) {
    PGresult* res = next_result();
    if (res == nullptr) return link_error("pipeline result");
    const auto status = PQresultStatus(res);
    const bool ok = status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
    if (ok && e.is_prepare) {
      std::erase(unconfirmed, statements_[e.index].sql);
    } else if (ok) {
      out.emplace_back(res);
      continue;
    } else if (!failure && status != PGRES_PIPELINE_ABORTED) {
      failure = conn_.error_of(res, e.is_prepare ? "prepare" : "query");
    }
    PQclear(res);
  }
  PGresult* sync = PQgetResult(pg);
  const bool synced = sync != nullptr && PQresultStatus(sync) == PGRES_PIPELINE_SYNC;
  PQclear(sync);
  if (!synced || PQexitPipelineMode(pg) != 1) return link_error("pipeline sync");
  for (const auto& sql : unconfirmed) conn_.prepared_.erase(sql);
  if (failure) {
    if (PQtransactionStatus(pg) != PQTRANS_IDLE) conn_.rollback();
    return std::unexpected(std::move(*failure));
  }
  return out;
}

}  // namespace hookd::store::postgres
