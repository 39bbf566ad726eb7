#include "config/config.hpp"

namespace hookd::config {

DatabaseKind DatabaseConfig::kind() const {
  const bool postgres = url.starts_with("postgresql://") || url.starts_with("postgres://");
  return postgres ? DatabaseKind::kPostgres : DatabaseKind::kSqlite;
}

}  // namespace hookd::config
