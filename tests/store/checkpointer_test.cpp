// Checkpointer: WAL checkpoints run off the commit path, so the writer's commits never copy
// the WAL into the database themselves.
#include "store/sqlite/checkpointer.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "store/store_contract.hpp"

namespace hookd::store::sqlite {
namespace {

TEST(CheckpointerTest, CopiesTheWalIntoTheDatabaseFileOnItsOwnConnection) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "c.db").string();
  ConnectionOptions writer_options;
  writer_options.wal_autocheckpoint = 0;  // as SqliteStore sets it with a Checkpointer
  auto writer = Connection::open(path, writer_options);
  ASSERT_TRUE(writer.has_value()) << writer.error().message;
  ASSERT_TRUE((*writer)->exec("CREATE TABLE t (x BLOB)").has_value());
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE((*writer)->exec("INSERT INTO t VALUES (randomblob(4000))").has_value());
  }
  const auto before = std::filesystem::file_size(path);  // commits stayed in the WAL

  auto own = Connection::open(path, ConnectionOptions{});
  ASSERT_TRUE(own.has_value());
  Checkpointer checkpointer(std::move(*own), std::chrono::hours(1));
  EXPECT_GT(checkpointer.checkpoint_once(), 0);
  EXPECT_GT(std::filesystem::file_size(path), before + 200 * 4000);
}

}  // namespace
}  // namespace hookd::store::sqlite
