// open_store(Config): the store the configuration names, with hookd's clock and ids (what
// serve and the CLI open); printable_database_url: the start-up log line never carries a
// PostgreSQL password.
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

TEST(OpenStore, OpensTheConfiguredDatabaseWithHookdsIds) {
  config::Config config;
  config.database.url = ":memory:";
  auto opened = open_store(config);
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  store::Store& store = *(*opened)->store;
  ASSERT_TRUE(store.migrate().has_value());
  store::Application app;
  app.name = "shop";
  auto created = store.create_application(app);
  ASSERT_TRUE(created.has_value()) << created.error().message;
  EXPECT_TRUE(created->id.starts_with("app_")) << created->id;
}

TEST(OpenStore, AnUnopenableDatabaseIsAnError) {
  config::Config config;
  config.database.url = "/nonexistent-dir/hookd.db";
  EXPECT_FALSE(open_store(config).has_value());
}

}  // namespace
}  // namespace hookd::app
