// Versioned schema migrations for the PostgreSQL backend: the same version numbers as the
// SQLite backend's (one `hookd migrate` for both), each applied in its own transaction with
// its `schema_migrations` row. Nodes starting together serialize on an advisory lock, so
// every migration runs exactly once. Thread-safety: call with a connection held exclusively.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "store/migration.hpp"
#include "store/postgres/pg_connection.hpp"

namespace hookd::store::postgres {

const std::vector<Migration>& pg_migrations();

// Creates `schema` when given, then applies every migration newer than the recorded version.
Status apply_pg_migrations(PgConnection& conn, const std::optional<std::string>& schema,
                           std::int64_t now_ms);
Result<int> current_pg_schema_version(PgConnection& conn);

}  // namespace hookd::store::postgres
