// printable_database_url: the start-up log line never carries a PostgreSQL password.
#include "app/store_factory.hpp"

#include <gtest/gtest.h>

namespace hookd::app {
namespace {

TEST(PrintableDatabaseUrl, RedactsPasswordsAndKeepsTheRest) {
  EXPECT_EQ(printable_database_url("postgresql://hookd:s3cret@db:5432/hookd"),
            "postgresql://hookd:<redacted>@db:5432/hookd");
  EXPECT_EQ(printable_database_url("postgres://u@db/x?password=pw&sslmode=require"),
            "postgres://u@db/x?password=<redacted>&sslmode=require");
  EXPECT_EQ(printable_database_url("postgresql://u@db:5432/x"), "postgresql://u@db:5432/x");
  EXPECT_EQ(printable_database_url("./hookd.db"), "./hookd.db");
}

}  // namespace
}  // namespace hookd::app
