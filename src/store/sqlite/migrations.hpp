// Versioned schema migrations for the SQLite backend: numbered SQL scripts applied in order,
// each in its own transaction together with its row in `schema_migrations`, so a crash
// mid-migration leaves the previous version intact. Thread-safety: call with the writer
// connection held exclusively.
#pragma once

#include <string_view>
#include <vector>

#include "hookd/result.hpp"
#include "store/migration.hpp"
#include "store/sqlite/connection.hpp"

namespace hookd::store::sqlite {

const std::vector<Migration>& migrations();

// Applies every migration newer than the recorded version. Idempotent.
Status apply_migrations(Connection& conn, std::int64_t now_ms);
Result<int> current_schema_version(Connection& conn);

}  // namespace hookd::store::sqlite
