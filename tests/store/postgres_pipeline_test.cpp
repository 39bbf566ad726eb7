// PgPipeline (libpq pipeline mode, used by the dispatcher's round): results come back in
// order, a failing statement fails the run with its error and rolls the transaction back,
// and the connection — including its prepared-statement cache — is usable afterwards.
#include <gtest/gtest.h>

#include "store/postgres/pg_pipeline.hpp"
#include "store/postgres_support.hpp"

namespace hookd::store::testing {
namespace {

using postgres::Params;
using postgres::PgConnection;
using postgres::PgPipeline;

class PgPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string schema = PgSchemas::instance().fresh();
    ASSERT_TRUE(pg_run(pg_test_url(), "CREATE SCHEMA " + schema));
    auto conn = PgConnection::open({pg_test_url(), schema});
    ASSERT_TRUE(conn.has_value()) << conn.error().message;
    conn_ = std::move(*conn);
    ASSERT_TRUE(conn_->exec("CREATE TABLE items (id BIGINT PRIMARY KEY, name TEXT NOT NULL)"));
  }

  std::int64_t count() {
    auto rows = conn_->query("SELECT COUNT(*) FROM items");
    return rows ? rows->int64(0, 0) : -1;
  }

  std::unique_ptr<PgConnection> conn_;
};

TEST_F(PgPipelineTest, ReturnsEveryStatementsRowsInOrder) {
  PgPipeline p(*conn_);
  p.add_simple("BEGIN");
  const auto insert = p.add("INSERT INTO items VALUES ($1, $2), ($3, $4) RETURNING id",
                            Params().add_all(1, "a", 2, "b"));
  const auto select = p.add("SELECT name FROM items WHERE id = $1", Params().add(2));
  const auto again = p.add("SELECT name FROM items WHERE id = $1", Params().add(1));
  p.add_simple("COMMIT");
  auto results = p.run();
  ASSERT_TRUE(results.has_value()) << results.error().message;
  ASSERT_EQ(results->size(), 5u);
  EXPECT_EQ((*results)[insert].size(), 2);
  EXPECT_EQ((*results)[select].text(0, 0), "b");
  EXPECT_EQ((*results)[again].text(0, 0), "a");  // same text: one PREPARE, two executions
  EXPECT_EQ(count(), 2);
}

TEST_F(PgPipelineTest, AFailingStatementRollsBackTheWholeTransaction) {
  ASSERT_TRUE(conn_->query("INSERT INTO items VALUES (1, 'kept')", {}));
  PgPipeline p(*conn_);
  p.add_simple("BEGIN");
  p.add("INSERT INTO items VALUES ($1, 'new')", Params().add(2));
  p.add("INSERT INTO items VALUES ($1, 'duplicate')", Params().add(1));  // unique violation
  p.add("INSERT INTO items VALUES ($1, 'skipped')", Params().add(3));
  p.add_simple("COMMIT");
  auto results = p.run();
  ASSERT_FALSE(results.has_value());
  EXPECT_EQ(results.error().code, ErrorCode::kConflict);
  EXPECT_EQ(count(), 1);  // nothing of the pipeline was kept

  // The connection is out of the transaction and its statements are still usable, both the
  // ones the failed pipeline prepared and the one it never reached.
  for (int id : {2, 3}) {
    EXPECT_TRUE(conn_->query("INSERT INTO items VALUES ($1, 'new')", Params().add(id)));
  }
  EXPECT_TRUE(conn_->query("INSERT INTO items VALUES ($1, 'skipped')", Params().add(4)));
  EXPECT_EQ(count(), 4);
}

TEST_F(PgPipelineTest, AStatementThatCannotBePreparedFailsTheRunAndIsNotCached) {
  PgPipeline p(*conn_);
  p.add_simple("BEGIN");
  p.add("SELECT no_such_column FROM items WHERE id = $1", Params().add(1));
  p.add_simple("COMMIT");
  ASSERT_FALSE(p.run().has_value());
  // Preparing it again (not reusing a name the server never accepted) fails the same way,
  // and an ordinary query still works.
  EXPECT_FALSE(conn_->query("SELECT no_such_column FROM items WHERE id = $1", Params().add(1)));
  EXPECT_TRUE(conn_->query("SELECT COUNT(*) FROM items"));
}

}  // namespace
}  // namespace hookd::store::testing
