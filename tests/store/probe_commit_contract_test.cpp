// Contract (issue 19, readiness): Store::probe_commit() is a real write transaction that
// leaves nothing visible behind: it succeeds on a healthy store, any number of times, and the
// schema and the data are as before. That it fails when the store cannot commit is shown per
// engine (sqlite_store_test.cpp: a held write lock) and end to end against a full "disk"
// (tests/e2e/readiness_e2e_test.cpp).
#include "store/store_contract.hpp"

namespace hookd::store::testing {
namespace {

class ProbeCommitTest : public StoreContract {};

TEST_P(ProbeCommitTest, SucceedsOnAHealthyStoreAndChangesNothingVisible) {
  auto app = make_app();
  auto before = store_->schema_version();
  ASSERT_TRUE(before.has_value());
  for (int i = 0; i < 3; ++i) {
    auto probed = store_->probe_commit();
    ASSERT_TRUE(probed.has_value()) << probed.error().message;
  }
  EXPECT_EQ(store_->schema_version().value(), *before);
  PageRequest all;
  EXPECT_EQ(store_->list_applications(all).value().data.size(), 1u);
  EXPECT_TRUE(store_->migrate().has_value());  // the migrations table is still consistent
}

INSTANTIATE_TEST_SUITE_P(Store, ProbeCommitTest, ::testing::ValuesIn(all_factories()),
                         factory_name);

}  // namespace
}  // namespace hookd::store::testing
