// One numbered schema migration: a version, a name recorded in `schema_migrations`, and the
// SQL applied in the version's transaction. Both backends list the same versions under the
// same names, each in its own SQL dialect. Thread-safety: a plain value type.
#pragma once

#include <string_view>

namespace hookd::store {

struct Migration {
  int version;
  std::string_view name;
  std::string_view sql;
};

}  // namespace hookd::store
